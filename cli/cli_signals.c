/*
 * cli_signals.c - the tools' signal handler (see cli_signals.h).
 */
#include "cli_signals.h"
#include "cube.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static const int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

/* Only async-signal-safe calls.  Dying of the signal with the default
 * action (rather than exiting with 128 + n) tells a parent, a shell or
 * mpiexec, what happened, as if there had been no handler. */
static void on_signal(int sig)
{
    cube_remove_temp_files();
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    /* the signal is blocked while its handler runs: let it in */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    _exit(128 + sig); /* not reached */
}

void cli_catch_signals(void)
{
    size_t n = sizeof caught / sizeof caught[0];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < n; i++)
        sigaddset(&sa.sa_mask, caught[i]); /* one handler at a time */
    for (size_t i = 0; i < n; i++) {
        struct sigaction old;
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(caught[i], &sa, NULL);
    }
}
