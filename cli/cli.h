/* cli.h: the command-line driver's pieces (patc.c, run.c). */
#ifndef PATC_CLI_H
#define PATC_CLI_H

#include "../compiler/compiler.h"

bool cli_parse_define(const char *s, Define *d);
bool cli_parse_dump(const char *s, DumpFlags *f);
/* `patc run ...`; argv[0] is "run". Returns the exit status. */
int cli_run(int argc, char **argv);
/* `patc tune ...`; argv[0] is "tune". Returns the exit status. */
int cli_tune(int argc, char **argv);

#endif
