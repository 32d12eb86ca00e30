#define _GNU_SOURCE
#include "docutil_support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 64
#define PATH_LIMIT 4096

static char paths[SLOTS][PATH_LIMIT];
static volatile sig_atomic_t used[SLOTS];

/* The files a scratch folder of a read-only SQLite open can hold. */
static const char *const names[] = {"store.sqlite", "store.sqlite-wal", "store.sqlite-shm", "store.sqlite-journal",
                                    "input", "output"};

int docutil_cleanup_register(const char *directory) {
    size_t length = strlen(directory);
    if (length + 32 >= PATH_LIMIT) return -1;
    for (int i = 0; i < SLOTS; i++) {
        if (!used[i]) {
            memcpy(paths[i], directory, length + 1);
            used[i] = 1;
            return 0;
        }
    }
    return -1;
}

void docutil_cleanup_unregister(const char *directory) {
    for (int i = 0; i < SLOTS; i++) {
        if (used[i] && strcmp(paths[i], directory) == 0) used[i] = 0;
    }
}

static void remove_folder(const char *directory) {
    char file[PATH_LIMIT];
    size_t length = strlen(directory);
    for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
        size_t name = strlen(names[n]);
        if (length + 1 + name + 1 > PATH_LIMIT) continue;
        memcpy(file, directory, length);
        file[length] = '/';
        memcpy(file + length + 1, names[n], name + 1);
        unlink(file);
    }
    rmdir(directory);
}

void docutil_cleanup_run(void) {
    for (int i = 0; i < SLOTS; i++) {
        if (used[i]) {
            remove_folder(paths[i]);
            used[i] = 0;
        }
    }
}

void docutil_die_of_signal(int signal_number);

/* Sets the handler of each signal (no SA_RESTART: a blocking read returns EINTR) and unblocks them all: a parent that
   spawned us with them blocked (a thread pool's mask is inherited) would make the tool impossible to interrupt. */
static void set_handlers(const int *signals, size_t count, void (*handler)(int)) {
    sigset_t unblock;
    sigemptyset(&unblock);
    for (size_t i = 0; i < count; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = handler;
        sigemptyset(&action.sa_mask);
        sigaction(signals[i], &action, NULL);
        sigaddset(&unblock, signals[i]);
    }
    pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
}

static void handle(int signal_number) {
    /* Die of the same signal, as the shell expects. */
    docutil_die_of_signal(signal_number);
}

void docutil_cleanup_install_signal_handlers(void) {
    static int installed = 0;
    if (installed) return;
    installed = 1;
    /* A normal exit removes them too (exit() runs atexit handlers); a reader that went away (SIGPIPE, as in
       `docutil dump - | head`) ends the run like any other signal, after the cleanup. */
    atexit(docutil_cleanup_run);
    const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    set_handlers(signals, sizeof signals / sizeof signals[0], handle);
}

int docutil_file_kind(const char *path, int follow) {
    struct stat info;
    int status = follow ? stat(path, &info) : lstat(path, &info);
    if (status != 0) return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    if (S_ISREG(info.st_mode)) return 1;
    if (S_ISDIR(info.st_mode)) return 2;
    if (S_ISFIFO(info.st_mode)) return 3;
    if (S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode)) return 4;
    if (S_ISSOCK(info.st_mode)) return 5;
    if (S_ISLNK(info.st_mode)) return 6;
    return 7;
}

/* Editing sessions (docutil open): a termination signal is noted, not acted on, so that the session can autosave
   the document before it ends; the read or poll waiting for input returns (no SA_RESTART) to let it look. */
static volatile sig_atomic_t session_signal = 0;

static void note_signal(int signal_number) {
    session_signal = signal_number;
}

void docutil_session_catch_signals(int catch_interrupt) {
    const int signals[] = {SIGTERM, SIGHUP, SIGINT};
    set_handlers(signals, catch_interrupt ? 3 : 2, note_signal);
}

int docutil_session_take_signal(void) {
    int noted = session_signal;
    session_signal = 0;
    return noted;
}

void docutil_die_of_signal(int signal_number) {
    docutil_cleanup_run();
    const int signals[] = {signal_number};
    set_handlers(signals, 1, SIG_DFL);
    raise(signal_number);
}

int docutil_open_pseudo_terminal(char *slave_name, size_t size) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_name, size) != 0) {
        close(master);
        return -1;
    }
    return master;
}
