/*
 * test_metric_kind.c - cube_convert_metric_kind on every real experiment of
 * testdata/cube and testdata/cubex.
 *
 * For each file, every metric is stored call-tree inclusive, then
 * exclusive again, and after each step:
 * - each converted metric has the kind asked for (or EXCLUSIVE for a type
 *   that cannot be stored inclusive); one left as it was is named in a
 *   warning and keeps its rows bit for bit;
 * - the stored rows hold what the kind says, checked without the views:
 *   after inclusify a call path's row is its own value plus its children's
 *   stored rows, after exclusify the row is the call path's own value;
 * - every view (call-inclusive and call-exclusive, per thread) gives the
 *   values it gave before.
 * Integers are compared exactly (modulo 2^bits for the narrow types, whose
 * arithmetic wraps); doubles within 1e-12 of the sum of the magnitudes
 * that make up the inclusive value (the bound of a sum's rounding).
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REL_TOL 1e-12

/* The integer type of a dtype: bits (8..64), 0 for a non-integer. */
static unsigned integer_bits(const char *dtype)
{
    static const struct {
        const char *name;
        unsigned bits;
    } types[] = {{"INT8", 8},     {"UINT8", 8},     {"CHAR", 8},
                 {"INT16", 16},   {"UINT16", 16},   {"SIGNED SHORT INT", 16},
                 {"SHORT INT", 16}, {"UNSIGNED SHORT INT", 16}, {"INT32", 32},
                 {"UINT32", 32},  {"SIGNED INT", 32}, {"INT", 32},
                 {"UNSIGNED INT", 32}, {"INT64", 64}, {"UINT64", 64},
                 {"SIGNED INTEGER", 64}, {"INTEGER", 64}, {"UNSIGNED INTEGER", 64}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strcmp(dtype, types[i].name) == 0)
            return types[i].bits;
    return 0;
}

/* Do a and b agree: integers exactly (modulo 2^bits below 64 bits),
 * doubles within REL_TOL of `scale`? */
static int agree(double a, double b, unsigned bits, double scale)
{
    if (a == b || (isnan(a) && isnan(b)))
        return 1;
    if (bits && bits < 64)
        return fmod(fabs(a - b), ldexp(1.0, (int)bits)) == 0.0;
    if (bits)
        return 0;
    return fabs(a - b) <= REL_TOL * fmax(scale, fmax(fabs(a), fabs(b)));
}

/* Is the metric's value type one of those with components or a minimum
 * and maximum, whose number is not the sum of its parts' numbers? */
static int structured(const char *dtype)
{
    return strcmp(dtype, "COMPLEX") == 0 || strcmp(dtype, "RATE") == 0 ||
           strcmp(dtype, "TAU_ATOMIC") == 0 || strcmp(dtype, "SCALE_FUNC") == 0 ||
           strncmp(dtype, "NDOUBLES(", 9) == 0 || strncmp(dtype, "HISTOGRAM(", 10) == 0;
}

static int may_be_inclusive(const cube_metric *m)
{
    const char *dtype = cube_metric_dtype(m);
    return cube_metric_combine(m) == CUBE_COMBINE_SUM && strcmp(dtype, "TAU_ATOMIC") != 0 &&
           strncmp(dtype, "HISTOGRAM(", 10) != 0;
}

/* Is `name` named in a warning of c from number `from` on? */
static int warned_about(const cube_t *c, size_t from, const char *name)
{
    for (size_t i = from; i < cube_num_warnings(c); i++) {
        const char *w = cube_warning(c, i);
        const char *open = strchr(w, '(');
        for (const char *p = open; p && (p = strstr(p, name)) != NULL; p++) {
            char before = p[-1], after = p[strlen(name)];
            if ((before == '(' || before == ' ') && (after == ',' || after == ')'))
                return 1;
        }
    }
    return 0;
}

/* One metric of the original experiment: its views and the magnitudes of
 * its inclusive values, per call path and thread (cnode-major). */
typedef struct {
    double *incl, *excl, *scale;
    int has_views;
} metric_ref;

static double *view_values(const cube_t *c, const cube_metric *m, cube_call_flavour flavour)
{
    size_t nc = cube_num_cnodes(c), nt = cube_num_threads(c);
    cube_status st;
    cube_view *v = cube_view_compute(c, m, CUBE_METRIC_INCLUSIVE, flavour, 0, &st);
    if (!v)
        fail_msg("%s: %s", cube_metric_uniq_name(m), st.message);
    double *out = malloc((nc * nt + 1) * sizeof *out);
    assert_non_null(out);
    for (size_t n = 0; n < nc; n++)
        for (size_t t = 0; t < nt; t++)
            out[n * nt + t] = cube_view_value(v, cube_get_cnode(c, n), t);
    cube_view_free(v);
    return out;
}

static metric_ref reference(const cube_t *c, const cube_metric *m)
{
    metric_ref r = {0};
    if (cube_metric_is_derived(m))
        return r;
    size_t nc = cube_num_cnodes(c), nt = cube_num_threads(c);
    r.has_views = 1;
    r.incl = view_values(c, m, CUBE_CALL_INCLUSIVE);
    r.excl = view_values(c, m, CUBE_CALL_EXCLUSIVE);
    r.scale = calloc(nc * nt + 1, sizeof *r.scale);
    assert_non_null(r.scale);
    /* children come after their parents: reverse index order sums subtrees */
    for (size_t n = nc; n-- > 0;) {
        const cube_cnode *cn = cube_get_cnode(c, n);
        for (size_t t = 0; t < nt; t++) {
            double own = r.excl[n * nt + t];
            r.scale[n * nt + t] += isfinite(own) && fabs(own) < 1e300 ? fabs(own) : 0.0;
        }
        const cube_cnode *parent = cube_cnode_parent(cn);
        if (parent)
            for (size_t t = 0; t < nt; t++)
                r.scale[cube_cnode_index(parent) * nt + t] += r.scale[n * nt + t];
    }
    return r;
}

static void reference_free(metric_ref *r)
{
    free(r->incl);
    free(r->excl);
    free(r->scale);
}

static double stored(const cube_t *c, const cube_metric *m, size_t cnode, size_t thread)
{
    const double *row = cube_get_row(c, m, cube_get_cnode(c, cnode));
    return row ? row[thread] : 0.0;
}

/* After converting `work` (a copy of `orig`) to `kind`, with the warnings
 * from number `from` on: kinds, stored rows and views as the top says. */
static void check_converted(const char *file, const cube_t *orig, const cube_t *work,
                            const metric_ref *refs, cube_metric_kind kind, size_t from)
{
    size_t nc = cube_num_cnodes(orig), nt = cube_num_threads(orig);
    for (size_t i = 0; i < cube_num_metrics(orig); i++) {
        const cube_metric *om = cube_get_metric(orig, i);
        const cube_metric *wm = cube_get_metric(work, i);
        const char *name = cube_metric_uniq_name(om);
        if (cube_metric_is_derived(om)) {
            assert_int_equal(cube_metric_type(wm), cube_metric_type(om));
            if (!warned_about(work, from, name))
                fail_msg("%s: derived metric %s not named in a warning", file, name);
            continue;
        }
        cube_metric_kind want =
            kind == CUBE_KIND_INCLUSIVE && !may_be_inclusive(om) ? CUBE_KIND_EXCLUSIVE : kind;
        if (cube_metric_type(wm) != want) {
            /* left as it was: it says so, and its rows are the original's */
            if (!warned_about(work, from, name))
                fail_msg("%s: metric %s is %s, not %s, without a warning", file, name,
                         cube_metric_kind_name(cube_metric_type(wm)),
                         cube_metric_kind_name(want));
            /* a plain floating value always converts: only an integer or
             * a structured value may be more than the views' doubles hold */
            if (!integer_bits(cube_metric_dtype(om)) && !structured(cube_metric_dtype(om)))
                fail_msg("%s: metric %s of dtype %s left %s, not %s", file, name,
                         cube_metric_dtype(om), cube_metric_kind_name(cube_metric_type(wm)),
                         cube_metric_kind_name(want));
            for (size_t n = 0; n < nc; n++)
                for (size_t t = 0; t < nt; t++)
                    if (!same_double(stored(work, wm, n, t), stored(orig, om, n, t)))
                        fail_msg("%s: kept metric %s changed at cnode %zu", file, name, n);
            continue;
        }
        unsigned bits = integer_bits(cube_metric_dtype(om));
        const metric_ref *r = &refs[i];
        /* the rows hold what the kind says; a structured value's number is
         * not the sum of its parts', so only its views are compared */
        for (size_t n = 0; n < nc && !structured(cube_metric_dtype(om)); n++) {
            const cube_cnode *cn = cube_get_cnode(work, n);
            for (size_t t = 0; t < nt; t++) {
                double expect = r->excl[n * nt + t];
                if (want == CUBE_KIND_INCLUSIVE)
                    for (size_t k = 0; k < cube_cnode_num_children(cn); k++)
                        expect += stored(work, wm, cube_cnode_index(cube_cnode_child(cn, k)), t);
                double got = stored(work, wm, n, t);
                if (cube_metric_combine(om) != CUBE_COMBINE_SUM &&
                    !cube_get_row(work, wm, cn))
                    continue; /* no row: no value of a maximum or minimum */
                if (!agree(got, expect, bits, r->scale[n * nt + t]))
                    fail_msg("%s: metric %s stored %s, cnode %zu thread %zu: %.17g, expected "
                             "%.17g",
                             file, name, cube_metric_kind_name(want), n, t, got, expect);
            }
        }
        /* the views convert by the kind: nothing a reader sees changes */
        double *incl = view_values(work, wm, CUBE_CALL_INCLUSIVE);
        double *excl = view_values(work, wm, CUBE_CALL_EXCLUSIVE);
        for (size_t k = 0; k < nc * nt; k++) {
            if (!agree(incl[k], r->incl[k], bits, r->scale[k]) ||
                !agree(excl[k], r->excl[k], bits, r->scale[k]))
                fail_msg("%s: metric %s, view at cnode %zu thread %zu changed: incl %.17g / "
                         "%.17g, excl %.17g / %.17g",
                         file, name, k / (nt ? nt : 1), k % (nt ? nt : 1), incl[k], r->incl[k],
                         excl[k], r->excl[k]);
        }
        free(incl);
        free(excl);
    }
}

static void round_trip(const char *path)
{
    cube_t *orig = read_ok(path), *work = read_ok(path);
    size_t nm = cube_num_metrics(orig);
    metric_ref *refs = calloc(nm + 1, sizeof *refs);
    assert_non_null(refs);
    for (size_t i = 0; i < nm; i++)
        refs[i] = reference(orig, cube_get_metric(orig, i));

    size_t from = cube_num_warnings(work);
    assert_int_equal(cube_convert_metric_kind(work, NULL, CUBE_KIND_INCLUSIVE), 0);
    check_converted(path, orig, work, refs, CUBE_KIND_INCLUSIVE, from);

    from = cube_num_warnings(work);
    assert_int_equal(cube_convert_metric_kind(work, NULL, CUBE_KIND_EXCLUSIVE), 0);
    check_converted(path, orig, work, refs, CUBE_KIND_EXCLUSIVE, from);

    for (size_t i = 0; i < nm; i++)
        reference_free(&refs[i]);
    free(refs);
    cube_free(orig);
    cube_free(work);
}

static void test_cube3_files(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++)
        round_trip(testdata(*f));
}

static void test_cubex_files(void **state)
{
    (void)state;
    DIR *d = opendir("testdata/cubex");
    assert_non_null(d);
    size_t files = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 6, ".cubex") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "testdata/cubex/%s", e->d_name);
        round_trip(path);
        files++;
    }
    closedir(d);
    assert_true(files >= 12); /* every archive of testdata/cubex */
}

/* The kinds a real file gets, and the warnings naming what is not
 * converted: Score-P's min_time and max_time, the derived metrics of a
 * cube_derive output, the structured values of CubeLib's example. */
static void test_kinds_and_warnings(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cubex/cubederive_scorep-1.1_profile.cubex"));
    size_t from = cube_num_warnings(c);
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_type(cube_find_metric(c, "time")), CUBE_KIND_INCLUSIVE);
    assert_int_equal(cube_metric_type(cube_find_metric(c, "visits")), CUBE_KIND_INCLUSIVE);
    assert_int_equal(cube_metric_type(cube_find_metric(c, "max_time")), CUBE_KIND_EXCLUSIVE);
    assert_true(warned_about(c, from, "min_time") && warned_about(c, from, "max_time"));
    assert_true(warned_about(c, from, "time_per_visit"));
    assert_false(warned_about(c, from, "time"));
    assert_int_equal(cube_num_warnings(c) - from, 2);
    cube_free(c);

    c = read_ok(testdata("cubex/cubelib-4.8.2_cube-values_example.cubex"));
    from = cube_num_warnings(c);
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_EXCLUSIVE), 0);
    /* exact values of structured types do not go through doubles */
    assert_true(warned_about(c, from, "COMPLEX") && warned_about(c, from, "RATE"));
    assert_int_equal(cube_metric_type(cube_find_metric(c, "COMPLEX")), CUBE_KIND_INCLUSIVE);
    assert_int_equal(cube_metric_type(cube_find_metric(c, "UINT8")), CUBE_KIND_EXCLUSIVE);
    cube_free(c);
}

/* One metric alone: the others keep their kind and rows. */
static void test_one_metric(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cube/scorep-1.1_profile.cube"));
    cube_metric *time = cube_find_metric(c, "time"), *visits = cube_find_metric(c, "visits");
    assert_non_null(time);
    assert_non_null(visits);
    const cube_cnode *root = cube_get_cnode(c, 0);
    double visits0 = cube_get_sev(c, visits, root, cube_get_thread(c, 0));
    assert_int_equal(cube_convert_metric_kind(c, time, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_type(time), CUBE_KIND_INCLUSIVE);
    assert_int_equal(cube_metric_type(visits), CUBE_KIND_EXCLUSIVE);
    assert_true(same_double(cube_get_sev(c, visits, root, cube_get_thread(c, 0)), visits0));
    assert_int_equal(cube_num_warnings(c), 0);
    cube_free(c);
}

/* Stored inclusive, written as CUBE 4 and read back: the same kinds and
 * rows (the writer's wide order for inclusive metrics). */
static void test_write_read(void **state)
{
    (void)state;
    cube_t *c = read_ok(testdata("cubex/scorep-9.0dev_time-p4-n2000-x1-r0_profile.cubex"));
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_type(cube_find_metric(c, "visits")), CUBE_KIND_INCLUSIVE);
    char *path = temp_path(".cubex");
    assert_int_equal(cube_write_file(c, path, 0), 0);
    cube_t *back = read_ok(path);
    assert_same_cube4_model(c, back);
    unlink(path);
    free(path);
    cube_free(back);
    cube_free(c);
}

/* Integer sums a double does not hold: the metric keeps its rows. */
static void test_integer_beyond_2_53(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_metric *m = cube_def_met(c, "Count", "count", "INT64", "occ", "", "", "", NULL);
    cube_region *r = cube_def_region(c, "main", -1, -1, "", "", "");
    cube_cnode *root = cube_def_cnode(c, r, NULL);
    cube_cnode *child = cube_def_cnode(c, r, root);
    cube_machine *mach = cube_def_mach(c, "m", "");
    cube_thread *t = cube_def_thrd(c, "t", 0, cube_def_proc(c, "p", 0, cube_def_node(c, "n", mach)));
    cube_set_sev(c, m, root, t, 9007199254740991.0); /* 2^53 - 1 */
    cube_set_sev(c, m, child, t, 2.0);
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_type(m), CUBE_KIND_EXCLUSIVE);
    assert_true(warned_about(c, 0, "count"));
    assert_true(cube_get_sev(c, m, root, t) == 9007199254740991.0);
    /* the child alone would fit: converting that one metric works */
    cube_set_sev(c, m, root, t, 5.0);
    assert_int_equal(cube_convert_metric_kind(c, m, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_metric_type(m), CUBE_KIND_INCLUSIVE);
    assert_true(cube_get_sev(c, m, root, t) == 7.0);
    cube_free(c);
}

static void test_errors(void **state)
{
    (void)state;
    assert_int_equal(cube_convert_metric_kind(NULL, NULL, CUBE_KIND_EXCLUSIVE), -1);
    cube_t *c = read_ok(testdata("cube/tau2cube_template1.cube"));
    cube_t *other = read_ok(testdata("cube/tau2cube_template1.cube"));
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_SIMPLE), -1);
    assert_int_equal(cube_error_code(c), CUBE_EINVAL);
    assert_non_null(strstr(cube_error(c), "EXCLUSIVE or INCLUSIVE"));
    assert_int_equal(cube_convert_metric_kind(c, cube_get_metric(other, 0), CUBE_KIND_INCLUSIVE),
                     -1);
    assert_int_equal(cube_error_code(c), CUBE_EINVAL);
    assert_non_null(strstr(cube_error(c), "not of this experiment"));
    /* a later success clears the error */
    assert_int_equal(cube_convert_metric_kind(c, NULL, CUBE_KIND_INCLUSIVE), 0);
    assert_int_equal(cube_error_code(c), CUBE_OK);
    assert_string_equal(cube_error(c), "");
    cube_free(other);
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cube3_files),     cmocka_unit_test(test_cubex_files),
        cmocka_unit_test(test_kinds_and_warnings), cmocka_unit_test(test_one_metric),
        cmocka_unit_test(test_write_read),      cmocka_unit_test(test_integer_beyond_2_53),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
