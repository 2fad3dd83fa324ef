/*
 * bench/bench_proc.h: what the benches that drive a running server share
 * besides their websocket client (bench_ws.h): clocks, pinning, the open
 * files limit, a server started as a child (fork/exec, its output in a log
 * file, the port read from its "listening" line), /proc figures of a
 * process, percentiles and small helpers.
 *
 * Each bench program sets bench_name (its name, the prefix of every line
 * these helpers print on stderr) and bench_cleanup (what bench_die does
 * before it exits).
 */
#ifndef BRIGADE_BENCH_PROC_H
#define BRIGADE_BENCH_PROC_H

#include <stdbool.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/helpers.h"

/* This build's brigaded and the scenarios' folder: CMake defines both for
 * the benches (BRIGADED_PATH, BRIGADE_SCENARIO_DIR); these are for a build
 * without it, run from the top of the checkout. */
#ifndef BRIGADED_PATH
#define BRIGADED_PATH "build/server/brigaded"
#endif
#ifndef BRIGADE_SCENARIO_DIR
#define BRIGADE_SCENARIO_DIR "scenarios"
#endif

/* The program's name ("bench_durable"), for messages. */
extern const char *bench_name;

/* The bench's own cleanup (its servers stopped, its connections closed,
 * bench_temp_dir_end), run by bench_die; NULL: none. */
extern void (*bench_cleanup)(void);

/* Prints "NAME: " and the message on stderr, runs bench_cleanup and exits
 * with 1. */
_Noreturn void bench_die(const char *format, ...) BRIGADE_PRINTF(1, 2);

/* Set by SIGINT and SIGTERM once bench_signals() has run: the bench's loop
 * checks it and dies. */
extern volatile sig_atomic_t bench_interrupted;

/* SIGINT and SIGTERM set bench_interrupted, SIGPIPE is ignored, and after
 * `watchdog_seconds` the watchdog (SIGALRM) says the run overran its time,
 * SIGKILLs the children still running and _exits with 3. */
void bench_signals(unsigned watchdog_seconds);

/* Makes the bench's temp folder, $TMPDIR/PREFIX-XXXXXX ($TMPDIR: /tmp by
 * default), and returns its path (dies on failure). */
const char *bench_temp_dir_make(const char *prefix);
/* Removes it with all it holds, or, with `keep`, says where it was kept;
 * nothing once done. */
void bench_temp_dir_end(bool keep);

/* CLOCK_MONOTONIC and this process's CPU time, in seconds. */
double bench_now(void);
double bench_cpu_seconds(void);

/* "1.23 0.98 0.77" from /proc/loadavg ("?" when unreadable). */
void bench_loadavg(char *out, size_t size);

/* Pins the calling process (or the child before its exec) to `cpu`; on
 * failure says so and _exits with 4. */
void bench_pin(int cpu);

/* Checks that both cores are this process's to use (dies if not; -1: not
 * pinned) and pins this process, the load generator, to `client_cpu`. */
void bench_pin_self(int server_cpu, int client_cpu);

/* Raises the soft RLIMIT_NOFILE to `need` (never lowers it); `what` says
 * who needs them ("1000 games"), for the message when the hard limit is
 * lower. Returns the soft limit now (-1: unlimited). */
long bench_nofile_raise(long need, const char *what);

/* A server run as a child process. */
typedef struct bench_child {
    pid_t pid; /* -1: not running */
    const char *name;
    char log_path[4200];
    /* Set by the caller before bench_child_start: the child's soft
     * RLIMIT_NOFILE (its `ulimit -n`), set before its exec; 0: inherited. */
    long nofile;
} bench_child;

/* Starts argv[0] (a path) with `argv`, its stdout and stderr in
 * DIR/LOG_NAME, pinned to `cpu` (-1: not pinned), killed by the kernel if
 * this process dies first (PR_SET_PDEATHSIG), and waits up to
 * `timeout` seconds for a line of its log holding `marker`: returns the
 * number that follows the marker (the port). Dies when the child exits
 * first, or the time is up. */
int bench_child_start(bench_child *child, const char *name, char *const argv[], const char *dir,
                      const char *log_name, int cpu, const char *marker, double timeout);

/* SIGTERM, up to 5 s, then SIGKILL; reaps it. Nothing when not running. */
void bench_child_stop(bench_child *child);

/* Forks a copy of this process as `child` (no exec: a load generator of
 * its own; bench_child_start execs its copy), pinned to `cpu` (-1: as this one), killed by the kernel if
 * this process dies first, and SIGKILLed by the watchdog. Returns 0 in the
 * copy, which has no bench_cleanup (its bench_die only exits) and should
 * end with _exit; the pid in this process. stdout and stderr are flushed
 * first. Dies when fork fails. */
pid_t bench_child_fork(bench_child *child, const char *name, int cpu);

/* Whether the child has exited (it is reaped then: *status holds its
 * waitpid status and pid is -1); false while it runs or when none ran. */
bool bench_child_exited(bench_child *child, int *status);

/* Forks a process that waits for this one to end, however it ends (even
 * by SIGKILL or the watchdog's _exit), and then removes `dir` and all in
 * it. */
void bench_cleaner_start(const char *dir);

/* utime + stime of a process in seconds (/proc/PID/stat), NaN if unknown. */
double bench_proc_cpu_seconds(pid_t pid);
/* A field of /proc/PID/io ("write_bytes"), -1 if unknown. */
long long bench_proc_io(pid_t pid, const char *name);
/* The soft "Max open files" of /proc/PID/limits, -1 if unknown. */
long bench_proc_nofile(pid_t pid);
/* A field of /proc/PID/status in KiB ("VmRSS", "VmHWM"), -1 if unknown. */
long bench_proc_status_kib(pid_t pid, const char *name);
/* How many descriptors the process has open (/proc/PID/fd), -1 if unknown. */
long bench_proc_fd_count(pid_t pid);

/* strtod of an option's value in min..max, or exits with 2 saying so. */
double bench_parse_number(const char *name, const char *text, double min, double max);

/* A command-line option of a bench: "--name VALUE", or a flag. */
typedef enum bench_option_kind {
    BENCH_OPTION_FLAG,   /* bool *: set to true, takes no value */
    BENCH_OPTION_DOUBLE, /* double *, in min..max */
    BENCH_OPTION_INT,    /* int *, in min..max (the number cut to an int) */
    BENCH_OPTION_LONG,   /* long *, in min..max */
    BENCH_OPTION_TEXT,   /* const char **: the value itself */
    BENCH_OPTION_CALL    /* call(value) */
} bench_option_kind;

typedef struct bench_option {
    const char *name; /* "--games"; NULL ends the table */
    bench_option_kind kind;
    void *target;
    double min, max;
    void (*call)(const char *value);
} bench_option;

/* The options that mean the same in every bench that drives a server. */
typedef struct bench_common_options {
    bool keep;                  /* --keep: leave the temp folder */
    double warmup, duration;    /* --warmup S, --duration S */
    const char *server_path;    /* --server PATH: brigaded */
    const char *scenario_path;  /* --scenario FILE */
    int server_cpu, client_cpu; /* --server-cpu C, --client-cpu C (-1: no pin) */
} bench_common_options;

/* Parses argv against `more` (the bench's own options, a table ended by a
 * NULL name) and the common ones into `common` (its defaults set before):
 * --help and -h print usage on stdout and exit 0; an unknown option or a
 * missing value prints usage on stderr and exits 2, as does a number out
 * of its range (bench_parse_number). */
void bench_options_parse(int argc, char **argv, bench_common_options *common,
                         const bench_option *more, void (*usage)(FILE *out));

/* Appends `value` to the growing array *list (*len used of *cap); dies
 * when memory runs out. */
void bench_samples_push(double **list, size_t *len, size_t *cap, double value);
/* Sorts `len` latencies in seconds and gives their p50, p99 and max in
 * milliseconds (NaN when there are none). */
void bench_samples_ms(double *list, size_t len, double *p50, double *p99, double *max);

/* qsort's comparison of doubles, and the nearest-rank percentile (0..100)
 * of `n` sorted values (NaN when n is 0). */
int bench_compare_double(const void *a, const void *b);
double bench_percentile(const double *sorted, size_t n, double p);

/* Removes a folder and everything in it, going on past what it cannot. */
void bench_remove_tree(const char *dir);

/* `bytes` random bytes (getrandom) as 2 * bytes hex characters and a NUL. */
void bench_random_hex(char *out, size_t bytes);

/* Reads a whole file (at most `max` bytes) into a NUL-terminated malloc'd
 * string; dies on failure. `what` names it in the message. */
char *bench_read_file(const char *path, size_t max, size_t *len_out, const char *what);

#endif
