# shellcheck shell=bash
# fabsweep db: maintenance of the database file. Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"db_migrate_readonly     integration/test_reliability_store  Failed  m_db_migrate_readonly"
)
# db migrate opens the file read-only: an older schema stays as it is
m_db_migrate_readonly() { mut cli/cmd_db.c 's/\tif (fab_store_open(a->db, FAB_STORE_WRITE, \&st))/\tif (fab_store_open(a->db, FAB_STORE_READONLY, \&st))/'; }
