// SPDX-License-Identifier: MIT
/*
 * fabsim_reports: an LD_PRELOAD shim, beside ibsim's umad2sim, that lets a
 * simulated client receive the SA's Reports (docs/watch.md, "The simulator's
 * Report path"). ibsim hands a request sent to QP1 only to a client that
 * holds the SM's device, so when the process registers an SA agent that
 * takes Reports (class 0x03 with a method mask), this opens the port's SM
 * device as an SM does (umad2sim marks the client as an SM, the simulated
 * port gets IsSM) and closes it with the port. fabsweep itself never opens
 * that device (docs/security.md): a test or benchmark preloads this, and
 * watch trusts the Report path only when both it and umad2sim are preloaded
 * (fab_umad_sim_reports). Build:
 *   cc -shared -fPIC -O2 -o fabsim_reports.so fabsim_reports.c -libumad -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

#define MAX_PORTS 16

static struct {
	int fd, sm_fd, port;
	char ca[UMAD_CA_NAME_LEN];
} ports[MAX_PORTS];
static int n_ports;

static void *next(const char *sym)
{
	return dlsym(RTLD_NEXT, sym);
}

int umad_open_port(const char *ca_name, int portnum)
{
	int (*real)(const char *, int) = (int (*)(const char *, int))next("umad_open_port");
	int fd = real(ca_name, portnum);

	if (fd >= 0 && n_ports < MAX_PORTS) {
		ports[n_ports].fd = fd;
		ports[n_ports].sm_fd = -1;
		ports[n_ports].port = portnum;
		ports[n_ports].ca[0] = 0;
		if (ca_name)
			strncat(ports[n_ports].ca, ca_name, sizeof(ports[n_ports].ca) - 1);
		n_ports++;
	}
	return fd;
}

int umad_register(int portid, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	int (*real)(int, int, int, uint8_t, long *) =
		(int (*)(int, int, int, uint8_t, long *))next("umad_register");
	int agent = real(portid, mgmt_class, mgmt_version, rmpp_version, method_mask);

	if (agent < 0 || mgmt_class != 0x03 || !method_mask)
		return agent;
	for (int i = 0; i < n_ports; i++) {
		char path[256];

		if (ports[i].fd != portid || ports[i].sm_fd >= 0)
			continue;
		if (umad_get_issm_path(ports[i].ca[0] ? ports[i].ca : NULL, ports[i].port, path,
				       sizeof(path)) == 0)
			ports[i].sm_fd = open(path, O_RDWR); /* umad2sim's open */
	}
	return agent;
}

int umad_close_port(int portid)
{
	int (*real)(int) = (int (*)(int))next("umad_close_port");

	for (int i = 0; i < n_ports; i++) {
		if (ports[i].fd != portid)
			continue;
		if (ports[i].sm_fd >= 0) {
			/* the simulator stops handing the SM's requests over; what
			 * it sent before is read and dropped while the agents are
			 * still there (umad2sim crashes on a MAD for an agent gone) */
			static char buf[65536];
			close(ports[i].sm_fd);
			for (int n = 0; n < 20; n++) {
				int len = (int)(sizeof(buf) - umad_size());

				int rc = umad_recv(portid, buf, &len, 5);

				if (rc < 0 && rc != -ETIMEDOUT)
					break;
			}
		}
		ports[i] = ports[--n_ports];
		break;
	}
	return real(portid);
}
