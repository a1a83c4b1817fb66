/* The floor under sampling several busy CPU threads on a host whose cores they fill: N
 * threads spin on arithmetic for SECS seconds each phase, and their work per second of their
 * own CPU time is compared with a phase in which nothing else happens:
 *   ordinary  - an ordinary thread wakes every PERIOD ns and does nothing;
 *   realtime  - the same thread at SCHED_FIFO 1 (refused without the privilege: said so);
 *   signals   - each busy thread gets a POSIX timer signal every PERIOD ns (SIGEV_THREAD_ID),
 *               a handler that does nothing: sampling done by the CPU threads themselves.
 * Usage: wake-busy THREADS PERIOD_NS SECS. Any sampler that wakes once per interval, even one
 * wake-up for all the threads' samples, pays at least the "ordinary" or "realtime" figure. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { NONE, ORDINARY, REALTIME, SIGNALS };
static const char *names[] = {"nothing", "ordinary", "realtime", "signals"};
static volatile int stop;
static long period_ns;
static int mode;
static double rate[64];
static unsigned long signals;

static double clk(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
static void handler(int s) { (void)s; __atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED); }

static void *busy(void *a)
{
    int me = (int)(long)a;
    unsigned long x = 1, n = 0;
    timer_t t;
    if (mode == SIGNALS) {
        struct sigevent ev;
        struct itimerspec its = {{0, period_ns}, {0, period_ns}};
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_THREAD_ID;
        ev.sigev_signo = SIGRTMIN + 3;
        ev._sigev_un._tid = syscall(SYS_gettid);
        if (timer_create(CLOCK_MONOTONIC, &ev, &t) == 0)
            timer_settime(t, 0, &its, NULL);
    }
    double c0 = clk(CLOCK_THREAD_CPUTIME_ID);
    while (!stop) {
        for (int i = 0; i < 10000; i++)
            x += i ^ (x >> 3);
        n++;
    }
    rate[me] = n / (clk(CLOCK_THREAD_CPUTIME_ID) - c0);
    if (mode == SIGNALS)
        timer_delete(t);
    return x == 42 ? (void *)a : NULL;
}

static unsigned long wakes;
static void *waker(void *a)
{
    (void)a;
    struct timespec t;
    if (mode == REALTIME) {
        struct sched_param p = {.sched_priority = 1};
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &p))
            fprintf(stderr, "wake-busy: no real-time priority (needs CAP_SYS_NICE)\n");
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    while (!stop) {
        t.tv_nsec += period_ns;
        while (t.tv_nsec >= 1000000000) { t.tv_nsec -= 1000000000; t.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        wakes++;
    }
    return NULL;
}

static double phase(int n, int m, int secs, double *events)
{
    pthread_t th[64], w;
    double sum = 0, w0 = clk(CLOCK_MONOTONIC);
    stop = 0; mode = m; wakes = 0; signals = 0;
    for (long i = 0; i < n; i++)
        pthread_create(&th[i], NULL, busy, (void *)i);
    if (m == ORDINARY || m == REALTIME)
        pthread_create(&w, NULL, waker, NULL);
    sleep(secs);
    stop = 1;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        sum += rate[i];
    }
    if (m == ORDINARY || m == REALTIME)
        pthread_join(w, NULL);
    *events = (m == SIGNALS ? signals : wakes) / (clk(CLOCK_MONOTONIC) - w0);
    return sum / n;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4, secs = argc > 3 ? atoi(argv[3]) : 3;
    struct sigaction sa;
    double ev, base;
    period_ns = argc > 2 ? atol(argv[2]) : 75000;
    if (n < 1 || n > 64 || period_ns < 1000 || secs < 1) {
        fprintf(stderr, "usage: wake-busy THREADS(1-64) PERIOD_NS SECS\n");
        return 2;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGRTMIN + 3, &sa, NULL);
    base = phase(n, NONE, secs, &ev);
    for (int m = ORDINARY; m <= SIGNALS; m++) {
        double r = phase(n, m, secs, &ev);
        printf("%d busy threads, %-8s every %ld ns: work per CPU-second %.4f of nothing's "
               "(%.0f events/s)\n", n, names[m], period_ns, r / base, ev);
    }
    return 0;
}
