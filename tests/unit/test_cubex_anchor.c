/*
 * test_cubex_anchor.c - the definitions of CUBE 4 files (anchor.xml):
 * every real file's definitions against its expected file
 * (testdata/cubex/NAME.expected.json: cube attributes and mirrors,
 * metrics with kinds, dtypes and CubePL expressions, regions, the call
 * tree, the system tree, locations, topologies), gzip-compressed and plain
 * anchors alike, a hand-made anchor with every element and attribute the
 * format has (and the unquoted values one writer produces), and hostile
 * anchors (truncated at every byte, unsupported versions, undefined and
 * duplicate ids), each failing with "FILE: member anchor.xml: line N: ...".
 */
#include "test_support.h"
#include "json_reader.h"
#include "cubex/anchor_private.h"
#include "cubex/tar_private.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DIR "testdata/cubex"

static const char *const files[] = {
    "mkcubex_minimal",
    "cubelib-4.8.2_cube-values_example",
    "scorep-9.0dev_time-p4-n2000-x1-r0_profile",
    "scorep-1.4_kripke-p8-d2-g32-r1_profile",
    "scorep-9.4_cubew-4.8-checksum-bug_bt-mz_sum-p2-r1",
    "scorep-7.0_hw_counter_L3_DCA_negative",
    "scorep-8.4_call_tree_test",
    "cube3to4_scorep-1.1_profile",
    "cube3to4_tau2cube_template1",
    "cube3to4_cubelib-test1.1_equal_raw-amp",
    "cube3to4_scalasca-bgpBT_experiment1",
    "cubederive_scorep-1.1_profile",
    NULL};

static cubex_anchor *read_anchor(const char *name, cubex_tar **tar)
{
    char path[512];
    cube_status st;
    snprintf(path, sizeof path, "%s/%s.cubex", DIR, name);
    cubex_tar *t = cubex_tar_open_path(path, 0, &st);
    if (!t)
        fail_msg("%s: %s", path, st.message);
    const cubex_member *m = cubex_tar_find(t, "anchor.xml");
    assert_non_null(m);
    cubex_anchor *a = cubex_anchor_read(t, m, &st);
    if (!a)
        fail_msg("%s: %s", path, st.message);
    assert_int_equal(st.code, CUBE_OK);
    *tar = t;
    return a;
}

/* ---- comparing with the expected file ------------------------------------------- */

static void expect_str(const char *got, const json *want, const char *what, size_t i)
{
    const char *w = want && want->type == JSON_NULL ? NULL : json_str(want);
    if ((got == NULL) != (w == NULL) || (got && strcmp(got, w) != 0))
        fail_msg("%s %zu: \"%s\", expected \"%s\"", what, i, got ? got : "(none)",
                 w ? w : "(none)");
}

static void expect_int(int64_t got, const json *want, const char *what, size_t i)
{
    if (!want || want->type != JSON_NUMBER || got != json_i64(want))
        fail_msg("%s %zu: %lld, expected %s", what, i, (long long)got,
                 want && want->text ? want->text : "(not a number)");
}

static const char *const type_names[] = {"EXCLUSIVE", "INCLUSIVE", "SIMPLE",
                                         "PREDERIVED_EXCLUSIVE", "PREDERIVED_INCLUSIVE",
                                         "POSTDERIVED"};

/* The expected files key a metric by its uniq_name, or uniq_name@id when
 * the name is used twice. */
static void metric_key(const cubex_anchor *a, size_t i, char *buf, size_t len)
{
    const cubex_metric_def *m = &a->metrics[i];
    int dup = 0;
    for (size_t k = 0; k < a->num_metrics && !dup; k++)
        dup = k != i && strcmp(a->metrics[k].uniq_name, m->uniq_name) == 0;
    if (dup)
        snprintf(buf, len, "%s@%llu", m->uniq_name, (unsigned long long)m->id);
    else
        snprintf(buf, len, "%s", m->uniq_name);
}

static void check_cube_level(const cubex_anchor *a, const json *doc)
{
    const json *an = json_get(doc, "anchor");
    assert_string_equal(a->version, json_str(json_get(an, "cube_version")));
    const json *attrs = json_get(an, "attrs"), *mirrors = json_get(an, "mirrors");
    assert_int_equal(a->attrs.n, json_len(attrs));
    for (size_t i = 0; i < a->attrs.n; i++) {
        expect_str(a->attrs.items[i].key, json_at(json_at(attrs, i), 0), "cube attr", i);
        expect_str(a->attrs.items[i].value, json_at(json_at(attrs, i), 1), "cube attr", i);
    }
    assert_int_equal(a->num_mirrors, json_len(mirrors));
    for (size_t i = 0; i < a->num_mirrors; i++)
        expect_str(a->mirrors[i], json_at(mirrors, i), "mirror", i);
    assert_int_equal(a->gzip,
                     json_get(json_get(doc, "container"), "anchor_gzip_compressed")->type ==
                         JSON_TRUE);
    const json *counts = json_get(doc, "counts");
    assert_int_equal(a->num_metrics, json_u64(json_get(counts, "metrics")));
    assert_int_equal(a->num_regions, json_u64(json_get(counts, "regions")));
    assert_int_equal(a->num_cnodes, json_u64(json_get(counts, "cnodes")));
    assert_int_equal(a->num_stns, json_u64(json_get(counts, "system_tree_nodes")));
    assert_int_equal(a->num_groups, json_u64(json_get(counts, "location_groups")));
    assert_int_equal(a->num_locations, json_u64(json_get(counts, "locations")));
    assert_int_equal(a->num_carts, json_u64(json_get(counts, "topologies")));
    size_t roots = 0;
    for (size_t i = 0; i < a->num_cnodes; i++)
        roots += a->cnodes[i].parent == CUBEX_NONE;
    assert_int_equal(roots, json_u64(json_get(counts, "root_cnodes")));
}

static void check_metrics(const cubex_anchor *a, const json *doc)
{
    const json *ms = json_get(doc, "metrics");
    char key[300], pkey[300];
    for (size_t i = 0; i < a->num_metrics; i++) {
        const cubex_metric_def *m = &a->metrics[i];
        const json *e = json_at(ms, i);
        metric_key(a, i, key, sizeof key);
        expect_str(key, json_get(e, "key"), "metric key", i);
        expect_str(m->uniq_name, json_get(e, "uniq_name"), "metric uniq_name", i);
        expect_str(m->disp_name, json_get(e, "disp_name"), "metric disp_name", i);
        expect_int((int64_t)m->id, json_get(e, "file_id"), "metric id", i);
        expect_str(type_names[m->type], json_get(e, "type"), "metric type", i);
        expect_str(m->ghost ? "GHOST" : "NORMAL", json_get(e, "viztype"), "metric viztype", i);
        expect_str(m->dtype_text, json_get(e, "dtype"), "metric dtype", i);
        assert_true(m->dtype_known);
        expect_int((int64_t)cubex_dtype_size(m->dtype), json_get(e, "value_size_bytes"),
                   "metric value size", i);
        expect_str(m->uom, json_get(e, "uom"), "metric uom", i);
        expect_str(m->val, json_get(e, "val"), "metric val", i);
        expect_str(m->cubepl ? m->cubepl->text : NULL, json_get(e, "cubepl"), "cubepl", i);
        expect_str(m->cubeplinit ? m->cubeplinit->text : NULL, json_get(e, "cubeplinit"),
                   "cubeplinit", i);
        assert_null(json_get(e, "cubeplaggr")); /* none in the files: see test_every_element */
        if (m->parent == CUBEX_NONE) {
            expect_str(NULL, json_get(e, "parent"), "metric parent", i);
        } else {
            assert_true(m->parent < i);
            metric_key(a, m->parent, pkey, sizeof pkey);
            expect_str(pkey, json_get(e, "parent"), "metric parent", i);
        }
        size_t nchild = 0;
        for (size_t k = i + 1; k < a->num_metrics; k++)
            if (a->metrics[k].parent == i) {
                metric_key(a, k, pkey, sizeof pkey);
                expect_str(pkey, json_at(json_get(e, "children"), nchild++), "metric child", i);
            }
        assert_int_equal(nchild, json_len(json_get(e, "children")));
    }
}

static void check_program(const cubex_anchor *a, const json *doc)
{
    const json *rs = json_get(doc, "regions"), *cs = json_get(doc, "cnodes");
    /* regions by id in the expected file */
    for (size_t i = 0; i < json_len(rs); i++) {
        const json *e = json_at(rs, i);
        size_t k = 0;
        while (k < a->num_regions && a->regions[k].id != json_i64(json_at(e, 0)))
            k++;
        assert_true(k < a->num_regions);
        const cubex_region_def *r = &a->regions[k];
        expect_str(r->name, json_at(e, 1), "region name", k);
        expect_str(r->mangled_name, json_at(e, 2), "region mangled name", k);
        expect_str(r->mod, json_at(e, 3), "region mod", k);
        expect_int(r->begin, json_at(e, 4), "region begin", k);
        expect_int(r->end, json_at(e, 5), "region end", k);
        expect_str(r->paradigm, json_at(e, 6), "region paradigm", k);
        expect_str(r->role, json_at(e, 7), "region role", k);
    }
    /* cnodes in document pre-order, as the array is */
    for (size_t i = 0; i < a->num_cnodes; i++) {
        const cubex_cnode_def *c = &a->cnodes[i];
        const json *e = json_at(cs, i);
        expect_int(c->id, json_at(e, 0), "cnode id", i);
        if (c->parent == CUBEX_NONE)
            assert_int_equal(json_at(e, 1)->type, JSON_NULL);
        else
            expect_int(a->cnodes[c->parent].id, json_at(e, 1), "cnode parent", i);
        expect_int(a->regions[c->region].id, json_at(e, 2), "cnode callee", i);
        expect_str(a->regions[c->region].name, json_at(e, 3), "cnode region name", i);
        expect_int(c->line, json_at(e, 4), "cnode line", i);
        expect_str(c->mod, json_at(e, 5), "cnode mod", i);
        const json *params = json_at(e, 6);
        assert_int_equal(c->num_params, json_len(params));
    }
}

static void check_system(const cubex_anchor *a, const json *doc)
{
    const json *ss = json_get(doc, "system_tree_nodes"), *gs = json_get(doc, "location_groups"),
               *ls = json_get(doc, "locations");
    for (size_t i = 0; i < a->num_stns; i++) {
        const cubex_stn_def *s = &a->stns[i];
        const json *e = json_at(ss, i);
        expect_int((int64_t)i, json_at(e, 0), "stn index", i);
        expect_str(s->name, json_at(e, 1), "stn name", i);
        expect_str(s->klass, json_at(e, 2), "stn class", i);
        if (s->parent == CUBEX_NONE)
            assert_int_equal(json_at(e, 3)->type, JSON_NULL);
        else
            expect_int((int64_t)s->parent, json_at(e, 3), "stn parent", i);
        expect_int(s->xml_id, json_at(e, 4), "stn Id", i);
    }
    for (size_t i = 0; i < a->num_groups; i++) {
        const cubex_lg_def *g = &a->groups[i];
        const json *e = json_at(gs, i);
        expect_int((int64_t)i, json_at(e, 0), "group index", i);
        expect_str(g->name, json_at(e, 1), "group name", i);
        expect_int(g->rank, json_at(e, 2), "group rank", i);
        expect_str(g->type_text, json_at(e, 3), "group type", i);
        expect_int((int64_t)g->stn, json_at(e, 4), "group node", i);
        expect_int(g->xml_id, json_at(e, 5), "group Id", i);
    }
    for (size_t i = 0; i < json_len(ls); i++) {
        const json *e = json_at(ls, i);
        size_t k = cubex_anchor_location(a, json_i64(json_at(e, 0)));
        assert_true(k < a->num_locations);
        const cubex_loc_def *l = &a->locations[k];
        expect_str(l->name, json_at(e, 1), "location name", k);
        expect_int(l->rank, json_at(e, 2), "location rank", k);
        expect_str(l->type_text, json_at(e, 3), "location type", k);
        expect_int((int64_t)l->group, json_at(e, 4), "location group", k);
    }
    static const char *const coord_names[] = {"locId", "lgId", "stnId", "thrdId", "procId",
                                              "nodeId", "machId"};
    const json *ts = json_get(doc, "topologies");
    for (size_t i = 0; i < a->num_carts; i++) {
        const cubex_cart_def *c = &a->carts[i];
        const json *e = json_at(ts, i), *dims = json_get(e, "dims"),
                   *coords = json_get(e, "coords");
        expect_str(c->name, json_get(e, "name"), "cart name", i);
        expect_int((int64_t)c->ndims, json_get(e, "ndims"), "cart ndims", i);
        assert_int_equal(json_len(dims), c->ndims);
        for (size_t d = 0; d < c->ndims; d++) {
            expect_str(c->dims[d].name, json_at(json_at(dims, d), 0), "dim name", d);
            expect_int(c->dims[d].size, json_at(json_at(dims, d), 1), "dim size", d);
            expect_str(c->dims[d].periodic_text, json_at(json_at(dims, d), 2), "dim periodic", d);
        }
        assert_int_equal(json_len(coords), c->num_coords);
        for (size_t k = 0; k < c->num_coords; k++) {
            const json *ce = json_at(coords, k);
            expect_str(coord_names[c->coords[k].kind], json_at(ce, 0), "coord kind", k);
            expect_int(c->coords[k].id, json_at(ce, 1), "coord id", k);
            for (size_t d = 0; d < c->ndims; d++)
                expect_int(c->coords[k].c[d], json_at(json_at(ce, 2), d), "coord", k);
        }
    }
}

static void test_real_files(void **state)
{
    (void)state;
    for (size_t f = 0; files[f]; f++) {
        cubex_tar *t;
        cubex_anchor *a = read_anchor(files[f], &t);
        json *doc = json_load_expected(DIR, files[f]);
        assert_non_null(doc);
        check_cube_level(a, doc);
        check_metrics(a, doc);
        check_program(a, doc);
        check_system(a, doc);
        assert_int_equal(a->unknown_elements, 0);
        json_free(doc);
        cubex_anchor_free(a);
        cubex_tar_close(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
