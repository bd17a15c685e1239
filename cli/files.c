/* files.c: how the command opens the files it is named (--input and --output of
 * `patc run`, -o, `patc tune --out`). The CLI sees only patc.h, so it cannot call the
 * front end's lang_open_regular; these follow the same rules: nothing is opened in a
 * way that can wait forever (a FIFO with no writer, or no reader), nothing is read
 * that never ends (/dev/zero), and a refusal names the file's kind. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kind of a file that is not a regular one, as a message says it. */
static const char *kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

static void not_regular(char *why, size_t len, mode_t mode)
{
    snprintf(why, len, "%s, not a regular file", kind(mode));
}

/* Rule: an input is a regular file. What is not one is refused from stat() before any
 * open (opening some devices does something); the open is non-blocking and checked
 * again with fstat, so a FIFO put in the file's place meanwhile cannot block it. */
int cli_open_input(const char *path, long long *size, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, len, "%s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        not_regular(why, len, st.st_mode);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, len, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        not_regular(why, len, st.st_mode);
        close(fd);
        return -1;
    }
    *size = (long long)st.st_size;
    return fd;
}

/* Rule: an output is a regular file (created, or emptied), or a character device or a
 * pipe, so that -o /dev/null and -o /dev/stdout keep working; a directory, a block
 * device or a socket is refused, and only a regular file is ever truncated. The open
 * is non-blocking: a FIFO that nothing reads fails at once (ENXIO) instead of waiting
 * for a reader; once open, writes block as they would on stdout. */
FILE *cli_open_output(const char *path, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))) {
        not_regular(why, len, st.st_mode);
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO && stat(path, &st) == 0 && S_ISFIFO(st.st_mode))
            snprintf(why, len, "a FIFO that no process has open for reading");
        else snprintf(why, len, "%s", strerror(e));
        return NULL;
    }
    const char *bad = NULL;
    if (fstat(fd, &st) != 0) bad = strerror(errno);
    else if (S_ISREG(st.st_mode)) {
        if (ftruncate(fd, 0) != 0) bad = strerror(errno);
    } else if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        not_regular(why, len, st.st_mode);
        close(fd);
        return NULL;
    }
    int fl = bad ? -1 : fcntl(fd, F_GETFL);
    if (!bad && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) bad = strerror(errno);
    FILE *f = bad ? NULL : fdopen(fd, "w");
    if (!f) {
        snprintf(why, len, "%s", bad ? bad : strerror(errno));
        close(fd);
    }
    return f;
}
