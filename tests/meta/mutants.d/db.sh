# shellcheck shell=bash
# fabsweep db: maintenance of the database file. Sourced by tests/meta/mutants.sh.
MUTANTS+=(
	"db_migrate_readonly     integration/test_reliability_store  Failed  m_db_migrate_readonly"
	"db_migrate_creates      integration/test_reliability_store  Failed  m_db_migrate_creates"
)
# db migrate opens the file read-only: an older schema stays as it is
m_db_migrate_readonly() { mut cli/cmd_db.c 's/\tif (fab_store_open(a->db, FAB_STORE_WRITE | FAB_STORE_EXISTING, \&st))/\tif (fab_store_open(a->db, FAB_STORE_READONLY, \&st))/'; }
# a write open that creates the file it was asked to find: db migrate makes an empty database
m_db_migrate_creates() { mut store/store.c 's/\tif ((!(flags \& FAB_STORE_WRITE) || (flags \& FAB_STORE_EXISTING)) \&\& access(path, F_OK) != 0)/\tif (!(flags \& FAB_STORE_WRITE) \&\& access(path, F_OK) != 0)/'; }
