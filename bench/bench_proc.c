/*
 * bench/bench_proc.c: clocks, pinning, limits, child servers and /proc
 * figures for the benches (see bench_proc.h).
 */
#define _GNU_SOURCE /* sched_setaffinity, getrandom */

#include "bench_proc.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *bench_name = "bench";
void (*bench_cleanup)(void);
volatile sig_atomic_t bench_interrupted;

void bench_die(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s: ", bench_name);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    if (bench_cleanup)
        bench_cleanup();
    exit(1);
}

static void on_interrupt(int signum)
{
    (void)signum;
    bench_interrupted = 1;
}

static void children_kill(void);

/* The last resort if the loop itself hangs: kill the servers and leave. */
static void on_alarm(int signum)
{
    (void)signum;
    static const char text[] = ": watchdog: the run overran its time, stopping\n";
    if (write(2, bench_name, strlen(bench_name)) < 0 || write(2, text, sizeof text - 1) < 0) {
        /* nothing more to do */
    }
    children_kill();
    _exit(3);
}

void bench_signals(unsigned watchdog_seconds)
{
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    alarm(watchdog_seconds);
}

static char temp_dir[4096];

const char *bench_temp_dir_make(const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/%s-XXXXXX", tmp && tmp[0] ? tmp : "/tmp", prefix);
    if (!mkdtemp(temp_dir)) {
        temp_dir[0] = '\0';
        bench_die("mkdtemp under %s: %s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
    }
    return temp_dir;
}

void bench_temp_dir_end(bool keep)
{
    if (temp_dir[0] && !keep)
        bench_remove_tree(temp_dir);
    else if (temp_dir[0])
        fprintf(stderr, "%s: kept %s\n", bench_name, temp_dir);
    temp_dir[0] = '\0';
}

double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double bench_cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void bench_loadavg(char *out, size_t size)
{
    snprintf(out, size, "?");
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f)
        return;
    double a, b, c;
    if (fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
        snprintf(out, size, "%.2f %.2f %.2f", a, b, c);
    fclose(f);
}

void bench_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "%s: cannot pin pid %d to core %d: %s\n", bench_name, (int)getpid(), cpu,
                strerror(errno));
        _exit(4);
    }
}

void bench_pin_self(int server_cpu, int client_cpu)
{
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    sched_getaffinity(0, sizeof allowed, &allowed);
    if (server_cpu >= 0 && !CPU_ISSET(server_cpu, &allowed))
        bench_die("core %d (--server-cpu) is not available to this process", server_cpu);
    if (client_cpu >= 0 && !CPU_ISSET(client_cpu, &allowed))
        bench_die("core %d (--client-cpu) is not available to this process", client_cpu);
    if (client_cpu >= 0)
        bench_pin(client_cpu);
}

long bench_nofile_raise(long need, const char *what)
{
    struct rlimit r;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        bench_die("getrlimit: %s", strerror(errno));
    if (r.rlim_cur != RLIM_INFINITY && (long)r.rlim_cur < need) {
        if (r.rlim_max != RLIM_INFINITY && (long)r.rlim_max < need)
            bench_die("%s need %ld open files; the hard limit is %ld (ulimit -Hn)", what, need,
                      (long)r.rlim_max);
        r.rlim_cur = (rlim_t)need;
        if (setrlimit(RLIMIT_NOFILE, &r) != 0)
            bench_die("setrlimit(RLIMIT_NOFILE, %ld): %s", need, strerror(errno));
    }
    return r.rlim_cur == RLIM_INFINITY ? -1 : (long)r.rlim_cur;
}

/* ---- children ------------------------------------------------------------ */

/* The pids started and not reaped yet, for the watchdog's signal handler. */
#define CHILDREN_MAX 8
static volatile pid_t children[CHILDREN_MAX];

static void children_note(pid_t pid, pid_t old)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (children[i] == old) {
            children[i] = pid;
            return;
        }
}

static void children_kill(void)
{
    for (int i = 0; i < CHILDREN_MAX; i++)
        if (children[i] > 0)
            kill(children[i], SIGKILL);
}

void bench_child_stop(bench_child *child)
{
    if (child->pid <= 0)
        return;
    kill(child->pid, SIGTERM);
    double deadline = bench_now() + 5.0;
    int status;
    while (bench_now() < deadline) {
        pid_t done = waitpid(child->pid, &status, WNOHANG);
        if (done == child->pid || (done < 0 && errno == ECHILD)) {
            children_note(0, child->pid);
            child->pid = -1;
            return;
        }
        usleep(20000);
    }
    fprintf(stderr, "%s: %s did not stop on SIGTERM within 5 s: SIGKILL\n", bench_name,
            child->name);
    kill(child->pid, SIGKILL);
    waitpid(child->pid, &status, 0);
    children_note(0, child->pid);
    child->pid = -1;
}

int bench_child_start(bench_child *child, const char *name, char *const argv[], const char *dir,
                      const char *log_name, int cpu, const char *marker, double timeout)
{
    child->name = name;
    child->pid = -1;
    snprintf(child->log_path, sizeof child->log_path, "%s/%s", dir, log_name);
    const char *log_path = child->log_path;
    int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (log_fd < 0)
        bench_die("cannot create %s: %s", log_path, strerror(errno));
    pid_t pid = bench_child_fork(child, name, cpu);
    if (pid == 0) {
        if (child->nofile > 0) {
            struct rlimit r;
            if (getrlimit(RLIMIT_NOFILE, &r) != 0)
                _exit(126);
            r.rlim_cur = (rlim_t)child->nofile;
            if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
                r.rlim_cur = r.rlim_max;
            if (setrlimit(RLIMIT_NOFILE, &r) != 0)
                _exit(126);
        }
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        execv(argv[0], argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", bench_name, argv[0], strerror(errno));
        _exit(127);
    }
    close(log_fd);

    double deadline = bench_now() + timeout;
    while (bench_now() < deadline) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            children_note(0, pid);
            child->pid = -1;
            char text[2048] = "";
            FILE *f = fopen(log_path, "r");
            if (f) {
                size_t n = fread(text, 1, sizeof text - 1, f);
                text[n] = '\0';
                fclose(f);
            }
            bench_die("%s (%s) exited before listening (status %d):\n%s", name, argv[0], status,
                      text);
        }
        FILE *f = fopen(log_path, "r");
        if (f) {
            char line[1024];
            while (fgets(line, sizeof line, f)) {
                const char *at = strstr(line, marker);
                if (at) {
                    fclose(f);
                    return atoi(at + strlen(marker));
                }
            }
            fclose(f);
        }
        usleep(20000);
    }
    bench_die("%s did not listen within %.0f s (see %s)", name, timeout, log_path);
}

pid_t bench_child_fork(bench_child *child, const char *name, int cpu)
{
    child->name = name;
    child->pid = -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        /* never outlive the bench (the parent may have died already) */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
            _exit(126);
        if (cpu >= 0)
            bench_pin(cpu);
        bench_cleanup = NULL;
        for (int i = 0; i < CHILDREN_MAX; i++) /* the parent's, not this copy's */
            children[i] = 0;
        return 0;
    }
    child->pid = pid;
    children_note(pid, 0);
    return pid;
}

bool bench_child_exited(bench_child *child, int *status)
{
    if (child->pid <= 0)
        return false;
    if (waitpid(child->pid, status, WNOHANG) != child->pid)
        return false;
    children_note(0, child->pid);
    child->pid = -1;
    return true;
}

void bench_cleaner_start(const char *dir)
{
    int fds[2];
    if (pipe(fds) != 0)
        bench_die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        /* The write end stays open in the bench only: EOF when it ends. */
        close(fds[1]);
        int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd >= 0) { /* nobody waits on our copy of stdout */
            dup2(null_fd, 0);
            dup2(null_fd, 1);
        }
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGALRM, SIG_DFL);
        alarm(0);
        char byte;
        for (;;) {
            ssize_t n = read(fds[0], &byte, 1);
            if (n == 0 || (n < 0 && errno != EINTR))
                break;
        }
        bench_remove_tree(dir);
        _exit(0);
    }
    close(fds[0]);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC); /* not into the servers */
}

/* ---- /proc ----------------------------------------------------------------- */

double bench_proc_cpu_seconds(pid_t pid)
{
    char path[64], text[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return NAN;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')'); /* after the command name */
    if (!p)
        return NAN;
    unsigned long utime = 0, stime = 0;
    /* fields 3..13, then 14 utime, 15 stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return NAN;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

/* The number after "NAME:" on a line of a /proc file, or -1. */
static long long proc_field(pid_t pid, const char *file, const char *name)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long long value = -1;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, name, len) == 0 && line[len] == ':')
            value = atoll(line + len + 1);
    fclose(f);
    return value;
}

long long bench_proc_io(pid_t pid, const char *name)
{
    return proc_field(pid, "io", name);
}

long bench_proc_status_kib(pid_t pid, const char *name)
{
    return (long)proc_field(pid, "status", name); /* "VmRSS:   1234 kB" */
}

long bench_proc_fd_count(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    long count = 0;
    for (struct dirent *e = readdir(dir); e; e = readdir(dir))
        count += e->d_name[0] != '.';
    closedir(dir);
    return count;
}

long bench_proc_nofile(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long value = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Max open files", 14) == 0)
            value = atol(line + 14);
    fclose(f);
    return value;
}

/* ---- small things ---------------------------------------------------------- */

double bench_parse_number(const char *name, const char *text, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min && v <= max)) {
        fprintf(stderr, "%s: %s: '%s' is not a number in %g..%g\n", bench_name, name, text, min,
                max);
        exit(2);
    }
    return v;
}

/* The entry of `a` in `options`, or NULL. */
/* Most options one bench takes, its own and the common ones together. */
#define BENCH_OPTIONS_MAX 64

/* Stores an option's value (NULL for a flag) where its row says. */
static void option_apply(const bench_option *o, const char *v)
{
    switch (o->kind) {
    case BENCH_OPTION_FLAG:
        *(bool *)o->target = true;
        break;
    case BENCH_OPTION_DOUBLE:
        *(double *)o->target = bench_parse_number(o->name, v, o->min, o->max);
        break;
    case BENCH_OPTION_INT:
        *(int *)o->target = (int)bench_parse_number(o->name, v, o->min, o->max);
        break;
    case BENCH_OPTION_LONG:
        *(long *)o->target = (long)bench_parse_number(o->name, v, o->min, o->max);
        break;
    case BENCH_OPTION_TEXT:
        *(const char **)o->target = v;
        break;
    case BENCH_OPTION_CALL:
        o->call(v);
        break;
    }
}

void bench_options_parse(int argc, char **argv, bench_common_options *common,
                         const bench_option *more, void (*usage)(FILE *out))
{
    const bench_option options[] = {
        {"--keep", BENCH_OPTION_FLAG, &common->keep, 0, 0, NULL},
        {"--warmup", BENCH_OPTION_DOUBLE, &common->warmup, 0, 600, NULL},
        {"--duration", BENCH_OPTION_DOUBLE, &common->duration, 0.1, 600, NULL},
        {"--server", BENCH_OPTION_TEXT, &common->server_path, 0, 0, NULL},
        {"--scenario", BENCH_OPTION_TEXT, &common->scenario_path, 0, 0, NULL},
        {"--server-cpu", BENCH_OPTION_INT, &common->server_cpu, -1, CPU_SETSIZE - 1, NULL},
        {"--client-cpu", BENCH_OPTION_INT, &common->client_cpu, -1, CPU_SETSIZE - 1, NULL},
        {NULL, BENCH_OPTION_FLAG, NULL, 0, 0, NULL},
    };
    /* getopt_long's table from the bench's rows, then the common ones (a
     * name in both is the bench's: the first match wins); each option's
     * value is its row's index + 256, clear of "h" and "?". */
    const bench_option *tables[2] = {more, options};
    const bench_option *rows[BENCH_OPTIONS_MAX];
    struct option longs[BENCH_OPTIONS_MAX + 2];
    int count = 0;
    for (int t = 0; t < 2; t++)
        for (const bench_option *o = tables[t]; o && o->name; o++) {
            if (count == BENCH_OPTIONS_MAX)
                bench_die("more than %d options", BENCH_OPTIONS_MAX);
            rows[count] = o;
            longs[count] = (struct option){o->name + 2,
                                           o->kind == BENCH_OPTION_FLAG ? no_argument
                                                                        : required_argument,
                                           NULL, 256 + count};
            count++;
        }
    longs[count++] = (struct option){"help", no_argument, NULL, 'h'};
    longs[count] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            exit(0);
        }
        if (c < 256) { /* getopt_long said what is wrong */
            usage(stderr);
            exit(2);
        }
        option_apply(rows[c - 256], optarg);
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", bench_name, argv[optind]);
        usage(stderr);
        exit(2);
    }
}

void bench_samples_push(double **list, size_t *len, size_t *cap, double value)
{
    double *grown = brigade_array_reserve(*list, cap, *len + 1, sizeof **list, 4096);
    if (!grown)
        bench_die("out of memory");
    *list = grown;
    (*list)[(*len)++] = value;
}

void bench_samples_ms(double *list, size_t len, double *p50, double *p99, double *max)
{
    if (len > 0)
        qsort(list, len, sizeof *list, bench_compare_double);
    *p50 = bench_percentile(list, len, 50) * 1000.0;
    *p99 = bench_percentile(list, len, 99) * 1000.0;
    *max = len ? list[len - 1] * 1000.0 : NAN;
}

int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_percentile(const double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    size_t i = (size_t)ceil(p / 100.0 * (double)n);
    return sorted[i == 0 ? 0 : i - 1]; /* nearest rank */
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path); /* go on whatever happens: remove what can be removed */
    return 0;
}

void bench_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void bench_random_hex(char *out, size_t bytes)
{
    unsigned char raw[64];
    if (bytes > sizeof raw || getrandom(raw, bytes, 0) != (ssize_t)bytes)
        bench_die("getrandom failed");
    for (size_t i = 0; i < bytes; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

char *bench_read_file(const char *path, size_t max, size_t *len_out, const char *what)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        bench_die("cannot open %s %s: %s", what, path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (size <= 0 || (size_t)size > max)
        bench_die("%s %s: %ld bytes", what, path, size);
    char *text = malloc((size_t)size + 1);
    if (!text || fread(text, 1, (size_t)size, f) != (size_t)size)
        bench_die("cannot read %s %s", what, path);
    text[size] = '\0';
    *len_out = (size_t)size;
    fclose(f);
    return text;
}
