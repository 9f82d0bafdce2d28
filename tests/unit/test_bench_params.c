/*
 * test_bench_params.c - the parameter file (SKaMPI's syntax;
 * bench/params.h): every section, every key with its values and
 * Default_Value / Max_Value, the defaults, the type table, comments, and
 * every error with its "FILE:LINE: expected ..., found ..." message.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "params.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parse_ok(const char *text, bench_params *p)
{
    char err[512];
    if (params_parse(text, strlen(text), "t.par", p, err, sizeof err) != 0)
        fail_msg("unexpected error: %s", err);
}

/* the error must be exactly "t.par:LINE: expected ..." and contain `what` */
static void parse_err(const char *text, int line, const char *what)
{
    char err[512], prefix[64];
    bench_params p;
    if (params_parse(text, strlen(text), "t.par", &p, err, sizeof err) == 0)
        fail_msg("parsed, but expected an error on line %d containing \"%s\"", line, what);
    snprintf(prefix, sizeof prefix, "t.par:%d: expected ", line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what) || strchr(err, '\n'))
        fail_msg("error \"%s\": expected \"%s...\" containing \"%s\"", err, prefix, what);
    /* nothing is left behind */
    assert_int_equal(p.n_suites, 0);
    assert_null(p.suites);
    assert_null(p.user);
    params_free(&p);
}

static void test_empty_and_defaults(void **state)
{
    (void)state;
    bench_params p;
    parse_ok("", &p);
    assert_int_equal(p.n_suites, 0);
    assert_null(p.user);
    assert_null(p.outfile);
    assert_int_equal(p.memory_kib, BENCH_MEMORY_KIB_DEFAULT);
    assert_int_equal(p.max_rep_default, BENCH_MAX_REP_DEFAULT);
    assert_int_equal(p.min_rep_default, BENCH_MIN_REP_DEFAULT);
    assert_int_equal(p.max_steps_default, BENCH_MAX_STEPS_DEFAULT);
    assert_int_equal(p.multiple_of_default, BENCH_MULTIPLE_OF_DEFAULT);
    assert_true(p.standard_error_default == BENCH_STANDARD_ERROR_DEFAULT);
    assert_true(p.time_meas_default == 60.0 * BENCH_TIME_MEAS_DEFAULT_MIN);
    assert_true(p.time_suite_default == 60.0 * BENCH_TIME_SUITE_DEFAULT_MIN);
    assert_true(p.cut_quantile_default == BENCH_CUT_QUANTILE_DEFAULT);
    assert_int_equal(p.absolute, 0);
    assert_int_equal(p.post_proc, 1);
    params_free(&p);
    /* blank lines and comments only */
    parse_ok("\n   \n# a comment\n\t# another\n\n", &p);
    assert_int_equal(p.n_suites, 0);
    params_free(&p);
    params_free(&p);   /* twice is harmless */
}

static const char full_file[] =
    "# cube_bench parameter file\n"                     /* 1 */
    "@USER Jane Doe\n"                                  /* 2 */
    "@MACHINE  cluster-7  \n"                           /* 3 */
    "@NETWORK\n"                                        /* 4 */
    "  shared memory\n"                                 /* 5 */
    "  (two sockets)\n"                                 /* 6 */
    "\n"                                                /* 7 */
    "@NODE AMD EPYC\n"                                  /* 8 */
    "@COMMENT first line\n"                             /* 9 */
    "# not part of the comment\n"                       /* 10 */
    "second line\n"                                     /* 11 */
    "@OUTFILE run.cube\n"                               /* 12 */
    "@LOGFILE run.log\n"                                /* 13 */
    "@MEMORY 8192\n"                                    /* 14 */
    "@MAX_REP_DEFAULT 200\n"                            /* 15 */
    "@MIN_REP_DEFAULT\n"                                /* 16 */
    "   12   # on its own line\n"                       /* 17 */
    "@MAX_STEPS_DEFAULT 40\n"                           /* 18 */
    "@MULTIPLE_OF_DEFAULT 8\n"                          /* 19 */
    "@STANDARD_ERROR_DEFAULT 0.02\n"                    /* 20 */
    "@TIME_MEAS_DEFAULT 0.5\n"                          /* 21 */
    "@TIME_SUITE_DEFAULT 2\n"                           /* 22 */
    "@CUT_QUANTILE_DEFAULT 0.1\n"                       /* 23 */
    "@ABSOLUTE yes\n"                                   /* 24 */
    "@POST no\n"                                        /* 25 */
    "@MEASUREMENTS\n"                                   /* 26 */
    "MPI_Send  # SKaMPI's example block\n"             /* 27 */
    "{\n"                                               /* 28 */
    "    Type = 50;\n"                                  /* 29 */
    "    Variation = Length;\n"                         /* 30 */
    "    Scale = Dynamic_log;\n"                        /* 31 */
    "    Max_Repetition = Default_Value;\n"             /* 32 */
    "    Min_Repetition = Default_Value;\n"             /* 33 */
    "    Multiple_of = Default_Value;\n"                /* 34 */
    "    Time_Measurement = Default_Value;\n"           /* 35 */
    "    Time_Suite = Default_Value;\n"                 /* 36 */
    "    Node_Times = yes;\n"                           /* 37 */
    "    Cut_Quantile = Default_Value;\n"               /* 38 */
    "    Default_Chunks = 0;\n"                         /* 39 */
    "    Default_Message_length = 256;\n"              /* 40 */
    "    Start_Argument = 0;\n"                         /* 41 */
    "    End_Argument = Max_Value;\n"                   /* 42 */
    "    Stepwidth = 1.414213562;\n"                    /* 43 */
    "    Max_Steps = Default_Value;\n"                  /* 44 */
    "    Min_Distance = 2;\n"                           /* 45 */
    "    Max_Distance = 512;\n"                         /* 46 */
    "    Standard_error = Default_Value;\n"             /* 47 */
    "}\n"                                               /* 48 */
    "Explicit { Type = Bcast; Variation = Nodes; Scale = Fixed_linear; Max_Repetition = 30;\n" /* 49 */
    "  Min_Repetition = 4; Multiple_of = 1; Time_Measurement = 0.25; Time_Suite = 1.5;\n"  /* 50 */
    "  Node_Times = no; Cut_Quantile = 0.2; Default_Chunks = 7; Default_Message_length = 1024;\n" /* 51 */
    "  Start_Argument = 2; End_Argument = 16; Stepwidth = 2; Max_Steps = 9;\n"  /* 52 */
    "  Min_Distance = 1; Max_Distance = 0; Standard_error = 0.05; Partner = Min_Latency; }\n"; /* 53 */

static void test_every_section_and_key(void **state)
{
    (void)state;
    bench_params p;
    parse_ok(full_file, &p);
    assert_string_equal(p.user, "Jane Doe");
    assert_string_equal(p.machine, "cluster-7");
    assert_string_equal(p.network, "shared memory\n(two sockets)");
    assert_string_equal(p.node, "AMD EPYC");
    assert_string_equal(p.comment, "first line\nsecond line");
    assert_string_equal(p.outfile, "run.cube");
    assert_string_equal(p.logfile, "run.log");
    assert_int_equal(p.memory_kib, 8192);
    assert_int_equal(p.max_rep_default, 200);
    assert_int_equal(p.min_rep_default, 12);
    assert_int_equal(p.max_steps_default, 40);
    assert_int_equal(p.multiple_of_default, 8);
    assert_true(p.standard_error_default == 0.02);
    assert_true(p.time_meas_default == 30.0);      /* minutes -> seconds */
    assert_true(p.time_suite_default == 120.0);
    assert_true(p.cut_quantile_default == 0.1);
    assert_int_equal(p.absolute, 1);
    assert_int_equal(p.post_proc, 0);
    assert_int_equal(p.section_line[BENCH_SEC_USER], 2);
    assert_int_equal(p.section_line[BENCH_SEC_MIN_REP_DEFAULT], 16);
    assert_int_equal(p.section_line[BENCH_SEC_MEASUREMENTS], 26);
    assert_int_equal(p.n_suites, 2);

    const bench_suite *s = &p.suites[0];
    assert_string_equal(s->name, "MPI_Send");
    assert_int_equal(s->line, 27);
    assert_int_equal(s->type, BENCH_TYPE_PING_SEND);   /* SKaMPI's Type = 50 */
    assert_int_equal(s->pattern, BENCH_PATTERN_P2P);
    assert_int_equal(s->variation, BENCH_VAR_LENGTH);
    assert_int_equal(s->scale, SCALE_DYNAMIC_LOG);
    assert_int_equal(s->max_rep, 200);
    assert_int_equal(s->min_rep, 12);
    assert_int_equal(s->multiple_of, 8);
    assert_true(s->time_meas == 30.0);
    assert_true(s->time_suite == 120.0);
    assert_int_equal(s->node_times, 1);
    assert_true(s->cut_quantile == 0.1);
    assert_int_equal(s->default_chunks, 0);
    assert_int_equal(s->default_msglen, 256);
    assert_int_equal(s->start_arg, 0);
    assert_int_equal(s->end_is_max, 1);
    assert_true(s->stepwidth == 1.414213562);
    assert_int_equal(s->max_steps, 40);
    assert_int_equal(s->min_dist, 2);
    assert_int_equal(s->max_dist, 512);
    assert_true(s->standard_error == 0.02);
    /* every key but cube_bench's own Partner */
    assert_int_equal(s->given, ((1u << BENCH_KEY_COUNT) - 1) & ~(1u << BENCH_KEY_PARTNER));
    unsigned defaults = 1u << BENCH_KEY_MAX_REPETITION | 1u << BENCH_KEY_MIN_REPETITION |
                        1u << BENCH_KEY_MULTIPLE_OF | 1u << BENCH_KEY_TIME_MEASUREMENT |
                        1u << BENCH_KEY_TIME_SUITE | 1u << BENCH_KEY_CUT_QUANTILE |
                        1u << BENCH_KEY_MAX_STEPS | 1u << BENCH_KEY_STANDARD_ERROR;
    assert_int_equal(s->from_default, defaults);
    /* SKaMPI's example block has every key, one per line */
    for (int k = 0; k <= BENCH_KEY_STANDARD_ERROR; k++)
        assert_int_equal(s->key_line[k], 29 + k);
    assert_int_equal(s->key_line[BENCH_KEY_PARTNER], 0);
    assert_int_equal(s->partner_min_latency, 0);

    s = &p.suites[1];
    assert_string_equal(s->name, "Explicit");
    assert_int_equal(s->line, 49);
    assert_int_equal(s->type, BENCH_TYPE_BCAST);
    assert_int_equal(s->pattern, BENCH_PATTERN_COLLECTIVE);
    assert_int_equal(s->variation, BENCH_VAR_NODES);
    assert_int_equal(s->scale, SCALE_FIXED_LINEAR);
    assert_int_equal(s->max_rep, 30);
    assert_int_equal(s->min_rep, 4);
    assert_int_equal(s->multiple_of, 1);
    assert_true(s->time_meas == 15.0);
    assert_true(s->time_suite == 90.0);
    assert_int_equal(s->node_times, 0);
    assert_true(s->cut_quantile == 0.2);
    assert_int_equal(s->default_chunks, 7);
    assert_int_equal(s->default_msglen, 1024);
    assert_int_equal(s->start_arg, 2);
    assert_int_equal(s->end_arg, 16);
    assert_int_equal(s->end_is_max, 0);
    assert_true(s->stepwidth == 2.0);
    assert_int_equal(s->max_steps, 9);
    assert_int_equal(s->min_dist, 1);
    assert_int_equal(s->max_dist, 0);
    assert_true(s->standard_error == 0.05);
    assert_int_equal(s->from_default, 0);
    assert_int_equal(s->key_line[BENCH_KEY_TYPE], 49);
    assert_int_equal(s->key_line[BENCH_KEY_STANDARD_ERROR], 53);
    assert_int_equal(s->key_line[BENCH_KEY_PARTNER], 53);
    assert_int_equal(s->partner_min_latency, 1);

    /* what the mechanisms get */
    asec_params a;
    params_suite_asec(&p.suites[1], &a);
    assert_int_equal(a.min_rep, 4);
    assert_int_equal(a.max_rep, 30);
    assert_true(a.rel_std_error == 0.05 && a.time_limit == 15.0 && a.cut_quantile == 0.2);
    refine_params r;
    params_suite_refine(&p.suites[0], 4 << 20, &r);
    assert_int_equal(r.scale, SCALE_DYNAMIC_LOG);
    assert_true(r.x_start == 0 && r.x_end == 4 << 20 && r.stepwidth == 1.414213562);
    assert_true(r.x_min_dist == 2 && r.multiple_of == 8 && r.x_max_steps == 40);
    assert_true(r.time_suite == 120.0 && r.max_rel_error == 0.04);
    assert_int_equal(refine_check(&r, NULL, 0), 0);
    params_suite_refine(&p.suites[1], 99, &r);
    assert_true(r.x_start == 2 && r.x_end == 16);
    params_free(&p);
    assert_int_equal(p.n_suites, 0);
}

static void test_key_defaults(void **state)
{
    (void)state;
    bench_params p;
    parse_ok("@MEASUREMENTS\n"
             "pp { Type = Pingpong_Send_Recv; }\n"
             "bar { Type = Barrier; }\n"
             "wt { Type = Wtime; }\n"
             "mw { Type = MW_Waitany; Variation = Chunks; }\n"
             "lin { Type = Allreduce; Scale = Dynamic_linear; }\n"
             "@MAX_REP_DEFAULT 77\n",      /* defaults may follow @MEASUREMENTS */
             &p);
    assert_int_equal(p.n_suites, 5);
    const bench_suite *s = &p.suites[0];
    assert_int_equal(s->variation, BENCH_VAR_LENGTH);
    assert_int_equal(s->scale, SCALE_DYNAMIC_LOG);
    assert_int_equal(s->max_rep, 77);
    assert_int_equal(s->min_rep, BENCH_MIN_REP_DEFAULT);
    assert_int_equal(s->start_arg, 0);
    assert_int_equal(s->end_is_max, 1);
    assert_true(s->stepwidth == 2.0);
    assert_int_equal(s->default_msglen, BENCH_DEFAULT_MSGLEN);
    assert_int_equal(s->min_dist, 1);
    assert_int_equal(s->node_times, 0);
    assert_int_equal(s->given, 1u << BENCH_KEY_TYPE);
    s = &p.suites[1];
    assert_int_equal(s->variation, BENCH_VAR_NODES);    /* a barrier has no length */
    assert_int_equal(s->scale, SCALE_FIXED_LINEAR);
    assert_int_equal(s->start_arg, 2);
    assert_true(s->stepwidth == 1.0);
    s = &p.suites[2];
    assert_int_equal(s->variation, BENCH_VAR_NONE);
    assert_int_equal(s->pattern, BENCH_PATTERN_SIMPLE);
    assert_int_equal(s->end_is_max, 0);
    s = &p.suites[3];
    assert_int_equal(s->variation, BENCH_VAR_CHUNKS);
    assert_int_equal(s->start_arg, 1);
    s = &p.suites[4];
    assert_int_equal(s->scale, SCALE_DYNAMIC_LINEAR);
    assert_true(s->stepwidth == 1.0);
    params_free(&p);

    /* Default_Value on keys without a @..._DEFAULT section: as if absent;
     * End_Argument = Default_Value is Max_Value */
    parse_ok("@MEASUREMENTS\nx { Type = Gather; Stepwidth = Default_Value; Start_Argument = Default_Value;\n"
             "Default_Message_length = Default_Value; Min_Distance = Default_Value; End_Argument = Default_Value; }\n",
             &p);
    assert_true(p.suites[0].stepwidth == 2.0);
    assert_int_equal(p.suites[0].start_arg, 0);
    assert_int_equal(p.suites[0].default_msglen, BENCH_DEFAULT_MSGLEN);
    assert_int_equal(p.suites[0].end_is_max, 1);
    params_free(&p);
}

static void test_syntax_variants(void **state)
{
    (void)state;
    bench_params p;
    /* keys, keywords, types and sections are case-insensitive; blocks may
     * share lines; comments after '#'; CRLF line ends; the long section
     * aliases; numbers with signs and exponents */
    parse_ok("@max_repetitions_default 50\r\n"
             "@Min_Repetitions_Default 5 # five\r\n"
             "@TIME_MEASUREMENT_DEFAULT 1e-2\r\n"
             "@measurements # the suites\r\n"
             "a{type=pingpong_sendrecv;variation=length;scale=FIXED_LOG;end_argument=+1024;node_times=YES;}b{\r\n"
             "TYPE = pingpong_send_irecv ; # an alias\r\n"
             "  Stepwidth = 4 ;\r\n"
             "}\n"
             "c { Type = Iprobe; Variation = No_Variation; }",   /* no final newline */
             &p);
    assert_int_equal(p.max_rep_default, 50);
    assert_int_equal(p.min_rep_default, 5);
    assert_true(fabs(p.time_meas_default - 0.6) < 1e-12);
    assert_int_equal(p.n_suites, 3);
    assert_int_equal(p.suites[0].type, BENCH_TYPE_PINGPONG_SENDRECV);
    assert_int_equal(p.suites[0].scale, SCALE_FIXED_LOG);
    assert_int_equal(p.suites[0].end_arg, 1024);
    assert_int_equal(p.suites[0].node_times, 1);
    assert_int_equal(p.suites[1].type, BENCH_TYPE_PINGPONG_IRECV_SEND);
    assert_int_equal(p.suites[1].line, 5);
    assert_int_equal(p.suites[1].key_line[BENCH_KEY_STEPWIDTH], 7);
    assert_int_equal(p.suites[2].type, BENCH_TYPE_IPROBE);
    params_free(&p);
    /* an empty text section is absent; text needs no NUL at len */
    const char text[] = "@USER\n@MEASUREMENTSxyz";
    char err[256];
    assert_int_equal(params_parse(text, strlen("@USER\n@MEASUREMENTS"), "t.par", &p, err, sizeof err), 0);
    assert_null(p.user);
    assert_int_equal(p.section_line[BENCH_SEC_USER], 1);
    params_free(&p);
}

/* A parameter file reads the same under a locale whose decimal point is a
 * comma (a program embedding the parser may have set one). */
static void test_locale(void **state)
{
    (void)state;
    if (!set_comma_locale())
        skip();
    char err[512];
    bench_params p;
    int rc = params_parse(full_file, strlen(full_file), "t.par", &p, err, sizeof err);
    setlocale(LC_NUMERIC, "C");
    if (rc != 0)
        fail_msg("under a decimal-comma locale: %s", err);
    assert_true(p.standard_error_default == 0.02);
    assert_true(p.suites[0].stepwidth == 1.414213562);
    params_free(&p);
}

static void test_types(void **state)
{
    (void)state;
    size_t n;
    const bench_type_info *list = bench_type_list(&n);
    assert_int_equal(n, BENCH_TYPE_COUNT);
    const char *want[] = { "Pingpong_Send_Recv", "Pingpong_Ssend_Recv", "Pingpong_Isend_Recv",
                           "Pingpong_Bsend_Recv", "Pingpong_Sendrecv", "Pingpong_Irecv_Send", "Ping_Send",
                           "Bcast", "Reduce", "Allreduce", "Gather", "Scatter", "Allgather", "Alltoall",
                           "Reduce_scatter", "Scan", "Barrier", "MW_Waitsome", "MW_Waitany", "MW_Recv_any",
                           "Wtime", "Comm_rank", "Iprobe" };
    assert_int_equal(sizeof want / sizeof want[0], BENCH_TYPE_COUNT);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(list[i].type, i);
        assert_string_equal(list[i].name, want[i]);
        assert_string_equal(bench_type_name((bench_type)i), want[i]);
        assert_ptr_equal(bench_type_lookup(want[i]), &list[i]);
        assert_non_null(list[i].operation);
        assert_non_null(list[i].description);
        assert_non_null(bench_pattern_name(list[i].pattern));
        /* every type parses by name */
        char text[200];
        snprintf(text, sizeof text, "@MEASUREMENTS\nS { Type = %s; }\n", want[i]);
        bench_params p;
        parse_ok(text, &p);
        assert_int_equal(p.suites[0].type, i);
        assert_int_equal(p.suites[0].pattern, list[i].pattern);
        params_free(&p);
    }
    assert_int_equal(bench_type_lookup("50")->type, BENCH_TYPE_PING_SEND);
    assert_int_equal(bench_type_lookup("BCAST")->type, BENCH_TYPE_BCAST);
    assert_null(bench_type_lookup("51"));
    assert_null(bench_type_lookup("Bcas"));
    assert_null(bench_type_lookup(""));
    assert_null(bench_type_lookup(NULL));
    assert_null(bench_type_name(BENCH_TYPE_COUNT));
    assert_int_equal(list[BENCH_TYPE_MW_RECV_ANY].pattern, BENCH_PATTERN_MW);
    assert_int_equal(list[BENCH_TYPE_COMM_RANK].pattern, BENCH_PATTERN_SIMPLE);
    assert_string_equal(bench_variation_name(BENCH_VAR_NONE), "No_Variation");
    assert_string_equal(bench_key_name(BENCH_KEY_DEFAULT_MESSAGE_LENGTH), "Default_Message_length");
    assert_null(bench_key_name(BENCH_KEY_COUNT));
    assert_string_equal(bench_section_name(BENCH_SEC_TIME_MEAS_DEFAULT), "@TIME_MEAS_DEFAULT");
    assert_null(bench_section_name(BENCH_SEC_COUNT));
}

static void test_errors_sections(void **state)
{
    (void)state;
    parse_err("hello\n", 1, "expected a section (a line starting with '@', e.g. @MEASUREMENTS), found 'hello'");
    parse_err("\n\n@FOO bar\n", 3, "found '@FOO'");
    parse_err("@USER: me\n", 1, "expected a section name");
    parse_err("@USER a\n@USER b\n", 2, "expected each section once, found a second @USER (first on line 1)");
    parse_err("@MEASUREMENTS\n@MEASUREMENTS\n", 2, "found a second @MEASUREMENTS");
    parse_err("@MEMORY\n", 1, "expected a value after @MEMORY, found end of file");
    parse_err("@MEMORY\n@USER x\n", 1, "expected a value after @MEMORY, found the next section '@USER'");
    parse_err("@MEMORY 4k\n", 1, "expected an integer >= 1 after @MEMORY, found '4k'");
    parse_err("@MEMORY 0\n", 1, "found '0'");
    parse_err("@MEMORY 12 13\n", 1, "expected one value after @MEMORY, found a second one, '13'");
    parse_err("@MAX_REP_DEFAULT 1.5\n", 1, "expected an integer >= 1 after @MAX_REP_DEFAULT, found '1.5'");
    parse_err("@MIN_REP_DEFAULT -1\n", 1, "found '-1'");
    parse_err("@MAX_STEPS_DEFAULT\n\n  x\n", 3, "found 'x'");
    parse_err("@MULTIPLE_OF_DEFAULT 99999999999999999999999\n", 1, "expected an integer >= 0");
    parse_err("@STANDARD_ERROR_DEFAULT 1..2\n", 1, "expected a number >= 0 after @STANDARD_ERROR_DEFAULT, found '1..2'");
    parse_err("@STANDARD_ERROR_DEFAULT nan\n", 1, "found 'nan'");
    parse_err("@STANDARD_ERROR_DEFAULT 0x10\n", 1, "found '0x10'");
    parse_err("@TIME_MEAS_DEFAULT -1\n", 1, "expected a number of minutes >= 0 after @TIME_MEAS_DEFAULT");
    parse_err("@TIME_SUITE_DEFAULT 1e999\n", 1, "found '1e999'");
    parse_err("@CUT_QUANTILE_DEFAULT 0.5\n", 1, "expected a number in [0, 0.5) after @CUT_QUANTILE_DEFAULT, found '0.5'");
    parse_err("@ABSOLUTE maybe\n", 1, "expected yes or no after @ABSOLUTE, found 'maybe'");
    parse_err("@POST 1\n", 1, "expected yes or no after @POST, found '1'");
    parse_err("@OUTFILE a b\n", 1, "expected one file name after @OUTFILE, found 'a b'");
    parse_err("@LOGFILE\n\n", 1, "expected one file name after @LOGFILE, found nothing");
    parse_err("@MAX_REP_DEFAULT 10\n@MIN_REP_DEFAULT 20\n", 2,
              "expected @MIN_REP_DEFAULT <= @MAX_REP_DEFAULT (10), found 20");
    char err[128];
    bench_params p;
    assert_int_equal(params_parse("@USER a\n\0b", 10, "t.par", &p, err, sizeof err), -1);
    assert_string_equal(err, "t.par:2: expected text, found a NUL byte");
    /* a tiny error buffer is filled, not overrun */
    char small[12];
    assert_int_equal(params_parse("junk", 4, "t.par", &p, small, sizeof small), -1);
    assert_string_equal(small, "t.par:1: ex");
    assert_int_equal(params_parse("junk", 4, "t.par", &p, NULL, 0), -1);
}

static void test_errors_blocks(void **state)
{
    (void)state;
    const char *M = "@MEASUREMENTS\n";
    char text[512];
#define ERR(body, line, what)                                  \
    do {                                                       \
        snprintf(text, sizeof text, "%s%s", M, body);          \
        parse_err(text, line, what);                           \
    } while (0)
    ERR("{ Type = Bcast; }\n", 2, "expected a measurement name or the end of @MEASUREMENTS, found '{'");
    ERR("12 { }\n", 2, "found '12'");
    ERR("a Type = Bcast; }\n", 2, "expected '{' after the measurement name 'a', found 'Type'");
    ERR("a { Typ = Bcast; }\n", 2, "expected a key (Type, Variation, Scale, Max_Repetition, ...; see cube_bench(5)) or '}', found 'Typ'");
    ERR("a { Type = Bcast; ; }\n", 2, "or '}', found ';'");
    ERR("a { Type Bcast; }\n", 2, "expected '=' after Type, found 'Bcast'");
    ERR("a { Type = ; }\n", 2, "expected a value for Type, found ';'");
    ERR("a { Type = Bcast }\n", 2, "expected ';' after the value of Type, found '}'");
    ERR("a { Type = Bcast;\n Scale = Fixed_log\n}\n", 4, "expected ';' after the value of Scale, found '}'");
    ERR("a { Type = Bcast Scale = Fixed_log; }\n", 2, "expected ';' after the value of Type, found 'Scale'");
    ERR("a { Type = Bcast;\n", 3, "expected '}' to close the block 'a' of line 2, found end of file");
    ERR("a { Type = Bcast;\n@USER x\n", 3, "expected '}' to close the block 'a' of line 2, found the next section '@USER'");
    ERR("a { Type = Bcast; = }\n", 2, "found '='");
    ERR("a { Type = Bcast; $ }\n", 2, "found '$'");
    ERR("a { Type = Nope; }\n", 2, "expected a measurement type (see cube_bench(5), e.g. Pingpong_Send_Recv), found 'Nope'");
    ERR("a { Type = 30; }\n", 2, "expected a measurement type");
    ERR("a { Type = {; }\n", 2, "expected a measurement type");
    ERR("a { Variation = Length; }\n", 2, "expected a Type in the block 'a' of line 2, found '}'");
    ERR("a { Type = Bcast; Type = Reduce; }\n", 2, "expected each key once in a block, found a second Type (first on line 2)");
    ERR("a { Type = Bcast; }\nb { Type = Scan; }\na { Type = Gather; }\n", 4,
        "expected a new measurement name, found 'a' again (first on line 2)");
    ERR("a { Type = Bcast; Variation = Bytes; }\n", 2, "expected a variation (Length, Nodes, Chunks, No_Variation), found 'Bytes'");
    ERR("a { Type = Bcast; Scale = Log; }\n", 2, "expected a scale (Fixed_linear, Fixed_log, Dynamic_linear, Dynamic_log), found 'Log'");
    ERR("a { Type = Bcast; Node_Times = 1; }\n", 2, "expected yes or no for Node_Times, found '1'");
    ERR("a { Type = Pingpong_Send_Recv; Partner = nearest; }\n", 2,
        "expected Max_Latency or Min_Latency for Partner, found 'nearest'");
    ERR("a { Type = Bcast; Max_Repetition = 1.5; }\n", 2,
        "expected an integer or Default_Value for Max_Repetition, found '1.5' (not an integer)");
    ERR("a { Type = Bcast; Max_Repetition = many; }\n", 2, "expected an integer or Default_Value for Max_Repetition, found 'many'");
    ERR("a { Type = Bcast; Max_Repetition = 0; }\n", 2, "expected an integer >= 1 for Max_Repetition, found '0'");
    ERR("a { Type = Bcast; Min_Repetition = -3; }\n", 2, "expected an integer >= 0 for Min_Repetition, found '-3'");
    ERR("a { Type = Bcast; Multiple_of = 2x; }\n", 2, "for Multiple_of, found '2x'");
    ERR("a { Type = Bcast; Max_Steps = 0; }\n", 2, "expected an integer >= 1 for Max_Steps");
    ERR("a { Type = Bcast; Default_Chunks = -1; }\n", 2, "for Default_Chunks");
    ERR("a { Type = Bcast; Default_Message_length = 1e3; }\n", 2, "for Default_Message_length, found '1e3' (not an integer)");
    ERR("a { Type = Bcast; Start_Argument = Max_Value; }\n", 2, "for Start_Argument, found 'Max_Value'");
    ERR("a { Type = Bcast; End_Argument = -5; }\n", 2, "expected an integer >= 0 or Max_Value for End_Argument, found '-5'");
    ERR("a { Type = Bcast; Min_Distance = 0.5; }\n", 2, "for Min_Distance");
    ERR("a { Type = Bcast; Max_Distance = x; }\n", 2, "for Max_Distance");
    ERR("a { Type = Bcast; Time_Measurement = -1; }\n", 2, "expected a number >= 0 for Time_Measurement, found '-1'");
    ERR("a { Type = Bcast; Time_Suite = soon; }\n", 2, "expected a number or Default_Value for Time_Suite, found 'soon'");
    ERR("a { Type = Bcast; Cut_Quantile = 0.5; }\n", 2, "expected a number in [0, 0.5) for Cut_Quantile, found '0.5'");
    ERR("a { Type = Bcast; Standard_error = -0.1; }\n", 2, "for Standard_error, found '-0.1'");
    ERR("a { Type = Bcast; Stepwidth = 0; }\n", 2, "expected a number > 0 for Stepwidth, found '0'");
    ERR("a { Type = Bcast; Stepwidth = Max_Value; }\n", 2, "for Stepwidth, found 'Max_Value'");
    /* checks that need the whole block (reported at the key's line) */
    ERR("a { Type = Bcast;\n Min_Repetition = 50;\n Max_Repetition = 10; }\n", 3,
        "expected Min_Repetition <= Max_Repetition (10) in 'a', found 50");
    ERR("a { Type = Bcast; Scale = Fixed_log;\n Stepwidth = 1; }\n", 3,
        "expected a Stepwidth > 1 for the scale Fixed_log in 'a', found 1");
    ERR("a { Type = Bcast; Start_Argument = 10;\nEnd_Argument = 5; }\n", 3,
        "expected an End_Argument >= Start_Argument (10) in 'a', found 5");
    ERR("a { Type = Pingpong_Send_Recv;\n Variation = Nodes; }\n", 3,
        "expected a variation of Pingpong_Send_Recv (Length or No_Variation), found Nodes");
    ERR("a { Type = Barrier; Variation = Length; }\n", 2, "(Nodes or No_Variation), found Length");
    ERR("a { Type = Wtime; Variation = Length; }\n", 2, "(No_Variation), found Length");
    ERR("a { Type = Bcast; Variation = Chunks; }\n", 2, "(Length, Nodes or No_Variation), found Chunks");
    ERR("a { Type = Bcast; Variation = Nodes; Start_Argument = 1; }\n", 2, "expected a Start_Argument >= 2 processes");
    /* the default sections feed the checks */
    parse_err("@MIN_REP_DEFAULT 40\n@MEASUREMENTS\nx { Type = Scan; Max_Repetition = 20; }\n", 3,
              "expected Min_Repetition <= Max_Repetition (20) in 'x', found 40");
#undef ERR
}

/* cube_bench(5) documents every type, key and section, and its example
 * parses (the tests run from the repository root) */
static void test_man_page(void **state)
{
    (void)state;
    size_t len;
    char *man = slurp("man/man5/cube_bench.5", &len);
    assert_non_null(man);
    char want[128];
    size_t n;
    const bench_type_info *list = bench_type_list(&n);
    for (size_t i = 0; i < n; i++) {
        snprintf(want, sizeof want, "\\fB%s\\fP\t", list[i].name);   /* a row of the TYPES table */
        if (!strstr(man, want))
            fail_msg("cube_bench(5) lacks the type %s", list[i].name);
    }
    for (int k = 0; k < BENCH_KEY_COUNT; k++) {
        snprintf(want, sizeof want, "\n.BI \"%s = \"", bench_key_name((bench_key)k));
        char want2[128];
        snprintf(want2, sizeof want2, "\n.BR \"%s = ", bench_key_name((bench_key)k));
        if (!strstr(man, want) && !strstr(man, want2))
            fail_msg("cube_bench(5) lacks the key %s", bench_key_name((bench_key)k));
    }
    for (int i = 0; i < BENCH_SEC_COUNT; i++)
        if (i != BENCH_SEC_MEASUREMENTS) {
            snprintf(want, sizeof want, "\\fB%s\\fP\t", bench_section_name((bench_section)i));
            if (!strstr(man, want))
                fail_msg("cube_bench(5) lacks the section %s", bench_section_name((bench_section)i));
        }
    /* the example: from the line after ".SH EXAMPLE\n.EX" to ".EE" */
    char *a = strstr(man, ".SH EXAMPLE\n.EX\n");
    assert_non_null(a);
    a += strlen(".SH EXAMPLE\n.EX\n");
    char *b = strstr(a, "\n.EE");
    assert_non_null(b);
    bench_params p;
    char err[256];
    if (params_parse(a, (size_t)(b - a) + 1, "example", &p, err, sizeof err) != 0)
        fail_msg("the example of cube_bench(5) does not parse: %s", err);
    assert_int_equal(p.n_suites, 4);
    assert_string_equal(p.comment, "point-to-point and collectives,\n1 byte to 4 MiB");
    params_free(&p);
    free(man);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_defaults),
        cmocka_unit_test(test_every_section_and_key),
        cmocka_unit_test(test_key_defaults),
        cmocka_unit_test(test_syntax_variants),
        cmocka_unit_test(test_locale),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_errors_sections),
        cmocka_unit_test(test_errors_blocks),
        cmocka_unit_test(test_man_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
