#ifndef DOCUTIL_SUPPORT_H
#define DOCUTIL_SUPPORT_H

#include <stddef.h>

/// Scratch folders to remove if the process is interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT): the handler only
/// unlinks the files a scratch folder can hold and removes the folder, which are async-signal-safe calls.
/// Returns 0 when registered, -1 when the table is full or the path too long (the caller then removes the folder
/// itself on every normal exit path, as always).
int docutil_cleanup_register(const char *directory);

/// Forgets a folder (after the caller removed it).
void docutil_cleanup_unregister(const char *directory);

/// Removes every registered folder now.
void docutil_cleanup_run(void);

/// Installs the signal handlers (once; for the command-line tool, never by the libraries on their own).
void docutil_cleanup_install_signal_handlers(void);

/// The file type of a path without following a final symbolic link when `follow` is 0:
/// 0 missing, 1 regular file, 2 directory, 3 FIFO, 4 character or block device, 5 socket, 6 symbolic link,
/// 7 other; -1 on another error (errno set).
int docutil_file_kind(const char *path, int follow);

/// For an editing session: SIGTERM and SIGHUP (and SIGINT when `catch_interrupt`) are noted instead of ending the
/// process, and interrupt a blocking read or poll (EINTR), so that the session can autosave first.
void docutil_session_catch_signals(int catch_interrupt);

/// The last signal noted since the previous call (0 for none), cleared.
int docutil_session_take_signal(void);

/// Removes registered scratch folders and ends the process by `signal_number`, as the shell expects.
void docutil_die_of_signal(int signal_number);

/// Opens a new pseudo-terminal: returns its master side (or -1, errno set) and writes the slave's path into
/// `slave_name` (for tests that drive an interactive session).
int docutil_open_pseudo_terminal(char *slave_name, size_t size);

#endif
