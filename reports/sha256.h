/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: SHA-256 (FIPS 180-4), for the Content-Security-Policy
 * hashes of the HTML report's inline style and script.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define FAB_SHA256_LEN 32
/* base64 of 32 bytes: 44 characters and a NUL */
#define FAB_SHA256_B64_LEN 45

void fab_sha256(const void *data, size_t len, uint8_t out[FAB_SHA256_LEN]);
/* The digest of data in base64 (the form CSP wants). */
void fab_sha256_base64(const void *data, size_t len, char out[FAB_SHA256_B64_LEN]);
