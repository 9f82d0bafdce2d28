/*
 * params.h - the cube_bench parameter file (SKaMPI's syntax), parsed into
 * structs.  The format is documented completely in
 * cube_bench(5); in short:
 *
 *   @USER ... @MACHINE ... @NETWORK ... @NODE ... @COMMENT ...
 *   @OUTFILE name   @LOGFILE name                        (text sections)
 *   @MEMORY 16384                                         (KiB)
 *   @MAX_REP_DEFAULT 1000   @MIN_REP_DEFAULT 16   @MAX_STEPS_DEFAULT 64
 *   @STANDARD_ERROR_DEFAULT 0.01   @CUT_QUANTILE_DEFAULT 0.25
 *   @TIME_MEAS_DEFAULT 0.05   @TIME_SUITE_DEFAULT 1     (minutes)
 *   @MULTIPLE_OF_DEFAULT 0   @ABSOLUTE no   @POST yes
 *   @MEASUREMENTS
 *   Name { Type = Pingpong_Send_Recv; Variation = Length; Scale = Dynamic_log;
 *          Max_Repetition = Default_Value; End_Argument = Max_Value; ... }
 *
 * Times in the file are in minutes (as SKaMPI's time_meas and time_suite);
 * the structs below hold SECONDS.
 *
 * No global state; the parser never exits.  Errors are one line:
 * "FILE:LINE: expected WHAT, found WHAT".
 */
#ifndef CUBE_BENCH_PARAMS_H
#define CUBE_BENCH_PARAMS_H

#include <stddef.h>

#include "asec.h"
#include "refine.h"

/* --- measurement types ------------------------------------------------- */

typedef enum {
    BENCH_PATTERN_P2P,         /* ping-pong between rank 0 and a partner */
    BENCH_PATTERN_COLLECTIVE,
    BENCH_PATTERN_MW,          /* master-worker */
    BENCH_PATTERN_SIMPLE       /* the cost of a single call */
} bench_pattern;

typedef enum {
    /* point-to-point (half round trip) */
    BENCH_TYPE_PINGPONG_SEND_RECV,     /* MPI_Send / MPI_Recv */
    BENCH_TYPE_PINGPONG_SSEND_RECV,    /* MPI_Ssend / MPI_Recv */
    BENCH_TYPE_PINGPONG_ISEND_RECV,    /* MPI_Isend (+Wait) / MPI_Recv */
    BENCH_TYPE_PINGPONG_BSEND_RECV,    /* MPI_Bsend / MPI_Recv */
    BENCH_TYPE_PINGPONG_SENDRECV,      /* MPI_Sendrecv on both sides */
    BENCH_TYPE_PINGPONG_IRECV_SEND,    /* MPI_Irecv posted first, MPI_Send, Wait */
    BENCH_TYPE_PING_SEND,              /* SKaMPI's example (Type = 50): MPI_Send
                                          timed on rank 0, the partner receives,
                                          no reply */
    /* collective */
    BENCH_TYPE_BCAST,
    BENCH_TYPE_REDUCE,
    BENCH_TYPE_ALLREDUCE,
    BENCH_TYPE_GATHER,
    BENCH_TYPE_SCATTER,
    BENCH_TYPE_ALLGATHER,
    BENCH_TYPE_ALLTOALL,
    BENCH_TYPE_REDUCE_SCATTER,
    BENCH_TYPE_SCAN,
    BENCH_TYPE_BARRIER,
    /* master-worker: how the master waits for the workers' results */
    BENCH_TYPE_MW_WAITSOME,            /* MPI_Waitsome */
    BENCH_TYPE_MW_WAITANY,             /* MPI_Waitany */
    BENCH_TYPE_MW_RECV_ANY,            /* MPI_Recv from MPI_ANY_SOURCE */
    /* simple */
    BENCH_TYPE_WTIME,                  /* MPI_Wtime */
    BENCH_TYPE_COMM_RANK,              /* MPI_Comm_rank */
    BENCH_TYPE_IPROBE,                 /* MPI_Iprobe (nothing pending) */
    BENCH_TYPE_COUNT
} bench_type;

typedef struct {
    bench_type type;
    const char *name;          /* the canonical name, e.g. "Pingpong_Send_Recv" */
    bench_pattern pattern;
    int number;                /* SKaMPI's numeric Type alias, or 0 for none */
    const char *operation;     /* e.g. "MPI_Send/MPI_Recv" */
    const char *description;   /* one line, for man pages and logs */
} bench_type_info;

/* All types, in enum order (list[i].type == i); *n receives BENCH_TYPE_COUNT. */
const bench_type_info *bench_type_list(size_t *n);
/* By name (case-insensitive, canonical names and aliases such as
 * "Pingpong_Send_Irecv") or by number as text ("50"); NULL if unknown. */
const bench_type_info *bench_type_lookup(const char *name);
const char *bench_type_name(bench_type t);           /* NULL if invalid */
const char *bench_pattern_name(bench_pattern p);     /* "p2p", "collective", "master-worker", "simple" */

/* --- a suite (one block of @MEASUREMENTS) ------------------------------ */

typedef enum { BENCH_VAR_LENGTH, BENCH_VAR_NODES, BENCH_VAR_CHUNKS, BENCH_VAR_NONE } bench_variation;
/* "Length", "Nodes", "Chunks", "No_Variation" */
const char *bench_variation_name(bench_variation v);

/* The keys of a block, in the order of SKaMPI's example block. */
typedef enum {
    BENCH_KEY_TYPE, BENCH_KEY_VARIATION, BENCH_KEY_SCALE,
    BENCH_KEY_MAX_REPETITION, BENCH_KEY_MIN_REPETITION, BENCH_KEY_MULTIPLE_OF,
    BENCH_KEY_TIME_MEASUREMENT, BENCH_KEY_TIME_SUITE, BENCH_KEY_NODE_TIMES,
    BENCH_KEY_CUT_QUANTILE, BENCH_KEY_DEFAULT_CHUNKS, BENCH_KEY_DEFAULT_MESSAGE_LENGTH,
    BENCH_KEY_START_ARGUMENT, BENCH_KEY_END_ARGUMENT, BENCH_KEY_STEPWIDTH,
    BENCH_KEY_MAX_STEPS, BENCH_KEY_MIN_DISTANCE, BENCH_KEY_MAX_DISTANCE,
    BENCH_KEY_STANDARD_ERROR, BENCH_KEY_PARTNER,
    BENCH_KEY_COUNT
} bench_key;
const char *bench_key_name(bench_key k);   /* e.g. "Max_Repetition"; NULL if invalid */

typedef struct {
    char *name;                /* the block's name (the region name in CUBE) */
    int line;                  /* line of the name in the file */
    bench_type type;
    bench_pattern pattern;     /* of type */
    bench_variation variation;
    refine_scale scale;
    int max_rep, min_rep;      /* Default_Value resolved */
    long multiple_of;          /* 0: no constraint */
    double time_meas;          /* seconds (the file gives minutes) */
    double time_suite;         /* seconds (the file gives minutes) */
    int node_times;            /* 1 = yes */
    int partner_min_latency;   /* Partner = Min_Latency (SKaMPI's which_to_measure:
                                  MEASURE_MIN); 0: the partner of the largest latency */
    double cut_quantile;
    long default_chunks;       /* 0: the pattern's choice (one chunk per worker) */
    long default_msglen;       /* bytes, the message length when not varied */
    long start_arg;
    long end_arg;              /* valid when !end_is_max */
    int end_is_max;            /* End_Argument = Max_Value (or not given): the
                                  largest argument the run allows (message
                                  length: what @MEMORY holds; nodes: all
                                  processes; chunks: the MPI side's limit) */
    double stepwidth;
    int max_steps;
    long min_dist, max_dist;   /* max_dist: stored, unused (as in SKaMPI) */
    double standard_error;     /* relative, e.g. 0.01 */
    unsigned given;            /* bit (1u << key): the key appears in the block */
    unsigned from_default;     /* bit (1u << key): its value was Default_Value */
    int key_line[BENCH_KEY_COUNT];   /* line of each given key, else 0 */
} bench_suite;

/* --- the whole file ---------------------------------------------------- */

typedef enum {
    BENCH_SEC_USER, BENCH_SEC_MACHINE, BENCH_SEC_NETWORK, BENCH_SEC_NODE,
    BENCH_SEC_COMMENT, BENCH_SEC_OUTFILE, BENCH_SEC_LOGFILE, BENCH_SEC_MEMORY,
    BENCH_SEC_MAX_REP_DEFAULT, BENCH_SEC_MIN_REP_DEFAULT, BENCH_SEC_MAX_STEPS_DEFAULT,
    BENCH_SEC_MULTIPLE_OF_DEFAULT, BENCH_SEC_STANDARD_ERROR_DEFAULT,
    BENCH_SEC_TIME_MEAS_DEFAULT, BENCH_SEC_TIME_SUITE_DEFAULT,
    BENCH_SEC_CUT_QUANTILE_DEFAULT, BENCH_SEC_ABSOLUTE, BENCH_SEC_POST,
    BENCH_SEC_MEASUREMENTS,
    BENCH_SEC_COUNT
} bench_section;
const char *bench_section_name(bench_section s);   /* e.g. "@MAX_REP_DEFAULT" */

typedef struct {
    /* text sections: the lines, each stripped of leading and trailing
     * blanks, without leading and trailing blank lines, joined by '\n';
     * NULL when the section is absent or empty.  @OUTFILE and @LOGFILE:
     * one word. */
    char *user, *machine, *network, *node, *comment, *outfile, *logfile;
    long memory_kib;               /* @MEMORY, KiB */
    int max_rep_default, min_rep_default, max_steps_default;
    long multiple_of_default;
    double standard_error_default; /* relative */
    double time_meas_default;      /* seconds (file: minutes) */
    double time_suite_default;     /* seconds (file: minutes) */
    double cut_quantile_default;
    int absolute, post_proc;       /* @ABSOLUTE, @POST: stored, yes/no */
    int section_line[BENCH_SEC_COUNT];   /* line of each section, 0 = absent */
    bench_suite *suites;           /* in file order */
    size_t n_suites;
} bench_params;

/* Built-in defaults (used when the file has no @..._DEFAULT section). */
#define BENCH_MEMORY_KIB_DEFAULT        16384L
#define BENCH_MAX_REP_DEFAULT           1000
#define BENCH_MIN_REP_DEFAULT           16
#define BENCH_MAX_STEPS_DEFAULT         64
#define BENCH_MULTIPLE_OF_DEFAULT       0L
#define BENCH_STANDARD_ERROR_DEFAULT    0.01
#define BENCH_TIME_MEAS_DEFAULT_MIN     0.05    /* minutes (3 s) */
#define BENCH_TIME_SUITE_DEFAULT_MIN    1.0     /* minutes */
#define BENCH_CUT_QUANTILE_DEFAULT      0.25
#define BENCH_DEFAULT_MSGLEN            256L

/* Parses text[0..len) (need not be NUL-terminated); filename is used in
 * messages only.  0 on success; -1 on a syntax or range error (message in
 * err, *out left empty) or when out of memory ("FILE: out of memory").
 * *out is overwritten (not freed) first. */
int params_parse(const char *text, size_t len, const char *filename, bench_params *out,
                 char *err, size_t errlen);
void params_free(bench_params *p);

/* The built-in values of a file with no sections at all. */
void params_init(bench_params *p);

/* The suite's settings as the mechanisms take them. */
void params_suite_asec(const bench_suite *s, asec_params *a);
/* end_max: the value of Max_Value for this suite (used when end_is_max).
 * max_rel_error = 2 * standard_error: SKaMPI's file has no key for the
 * refinement bound, and prediction errors below about twice the values'
 * own relative standard error are noise, not structure (SKaMPI: "we are
 * not interested in investing a lot time to measure this noise"). */
void params_suite_refine(const bench_suite *s, long end_max, refine_params *r);

#endif
