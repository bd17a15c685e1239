/* tmpdir.h: the Check fixture of the runtime suites that work in a directory of their
 * own: each test gets a fresh one under /tmp (tmpdir), removed with all it holds after
 * the test. Include it once, in the suite's file. */
#ifndef PATC_TESTS_TMPDIR_H
#define PATC_TESTS_TMPDIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static char tmpdir[256];

static void tmpdir_setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/patc-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmpdir_teardown(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

#endif
