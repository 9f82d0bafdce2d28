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
#include "cubex_expected.h"
#include "cubex/anchor_private.h"
#include "cubex/tar_private.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define DIR "testdata/cubex"

static const char *const *const files = cubex_files;

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

/* ---- CUBE 3 documents -------------------------------------------------------------- */

/* A CUBE 3 document (version 3.0, accepted in an archive too) reads as
 * the same definitions the reference library's conversion of it holds:
 * <machine>/<node> as system tree nodes, <process> as a location group,
 * <thread> as a location keeping its Id, thrdId coordinates; the inline
 * <severity> section skipped. */
static void compare_cube3(const char *cube3, const char *cubex)
{
    char path[512];
    snprintf(path, sizeof path, "testdata/cube/%s.cube", cube3);
    size_t n;
    char *text = slurp(path, &n);
    assert_non_null(text);
    cube_status st;
    cubex_anchor *a = cubex_anchor_parse(text, n, path, &st);
    if (!a)
        fail_msg("%s", st.message);
    free(text);
    assert_string_equal(a->version, "3.0");
    assert_true(a->has_severity);
    assert_int_equal(a->unknown_elements, 0);
    cubex_tar *t;
    cubex_anchor *b = read_anchor(cubex, &t);
    assert_int_equal(a->num_regions, b->num_regions);
    assert_int_equal(a->num_cnodes, b->num_cnodes);
    for (size_t i = 0; i < a->num_cnodes; i++) {
        assert_int_equal(a->cnodes[i].id, b->cnodes[i].id);
        assert_int_equal(a->cnodes[i].parent, b->cnodes[i].parent);
        assert_string_equal(a->regions[a->cnodes[i].region].name,
                            b->regions[b->cnodes[i].region].name);
    }
    assert_int_equal(a->num_stns, b->num_stns);
    for (size_t i = 0; i < a->num_stns; i++) {
        assert_string_equal(a->stns[i].name, b->stns[i].name);
        assert_string_equal(a->stns[i].klass, b->stns[i].klass);
        assert_int_equal(a->stns[i].parent, b->stns[i].parent);
    }
    assert_int_equal(a->num_groups, b->num_groups);
    for (size_t i = 0; i < a->num_groups; i++) {
        if (a->groups[i].name[0]) /* a CUBE 3 process may be unnamed: the converter names it */
            assert_string_equal(a->groups[i].name, b->groups[i].name);
        assert_int_equal(a->groups[i].rank, b->groups[i].rank);
        assert_int_equal(a->groups[i].type, b->groups[i].type);
        assert_int_equal(a->groups[i].stn, b->groups[i].stn);
    }
    assert_int_equal(a->num_locations, b->num_locations);
    for (size_t i = 0; i < a->num_locations; i++) {
        assert_int_equal(a->locations[i].id, b->locations[i].id);
        if (a->locations[i].name[0])
            assert_string_equal(a->locations[i].name, b->locations[i].name);
        assert_int_equal(a->locations[i].rank, b->locations[i].rank);
        assert_int_equal(a->locations[i].type, b->locations[i].type);
        assert_int_equal(a->locations[i].group, b->locations[i].group);
    }
    assert_int_equal(a->num_carts, b->num_carts);
    for (size_t i = 0; i < a->num_carts; i++) {
        const cubex_cart_def *x = &a->carts[i], *y = &b->carts[i];
        assert_int_equal(x->ndims, y->ndims);
        assert_int_equal(x->num_coords, y->num_coords);
        for (size_t k = 0; k < x->num_coords; k++) {
            assert_int_equal(x->coords[k].kind, CUBEX_COORD_THREAD);
            assert_int_equal(y->coords[k].kind, CUBEX_COORD_LOCATION);
            assert_int_equal(x->coords[k].id, y->coords[k].id);
            assert_memory_equal(x->coords[k].c, y->coords[k].c, x->ndims * sizeof *x->coords[k].c);
        }
    }
    cubex_anchor_free(a);
    cubex_anchor_free(b);
    cubex_tar_close(t);
}

static void test_cube3_documents(void **state)
{
    (void)state;
    compare_cube3("scorep-1.1_profile", "cube3to4_scorep-1.1_profile");
    compare_cube3("tau2cube_template1", "cube3to4_tau2cube_template1");
    compare_cube3("scalasca-bgpBT_experiment1", "cube3to4_scalasca-bgpBT_experiment1");
}

/* ---- a hand-made anchor with everything ------------------------------------------ */

/* Every element and attribute the format has, in the forms writers use
 * (unquoted CubePL attribute values, CDATA, escapes) and a few a reader
 * must tolerate (a comment, an unknown element, single quotes). */
static const char every_element[] =
    "  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cube version=\"4.5\">\n"
    "<attr key=\"Creator\" value=\"a &amp; b\"/>\n"
    "<attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n"
    "<doc><mirrors><murl>http://m1/</murl><murl>http://m2/</murl></mirrors></doc>\n"
    "<!-- a comment -->\n"
    "<metrics title=\"Metrics\">\n"
    "<metric id=\"7\" type=\"INCLUSIVE\" convertible=\"false\" cacheable=\"FALSE\">\n"
    "<disp_name>Time</disp_name><uniq_name>time</uniq_name><dtype>DOUBLE</dtype>\n"
    "<uom>sec</uom><url>@mirror@t.html</url><descr>all &lt;time&gt;</descr>\n"
    "<attr key=\"k\" value=\"v\"/>\n"
    "<metric id=\"3\" type=\"PREDERIVED_EXCLUSIVE\" viztype=\"GHOST\">\n"
    "<uniq_name>d</uniq_name><dtype>NDOUBLES(3)</dtype><val>VOID</val>\n"
    "<cubepl rowwise=false>metric::time()*2</cubepl>\n"
    "<cubeplinit locationwise=false>{ ${a}=0; }</cubeplinit>\n"
    "<cubeplaggr cubeplaggrtype=plus>arg1+arg2</cubeplaggr>\n"
    "<cubeplaggr cubeplaggrtype='minus'><![CDATA[arg1-arg2 < 3]]></cubeplaggr>\n"
    "</metric>\n"
    "<metric id=\"9\"><uniq_name>odd</uniq_name><dtype>QUATERNION</dtype><unknownchild/></metric>\n"
    "</metric>\n"
    "</metrics>\n"
    "<program>\n"
    "<region id=\"4\" mod=\"a.c\" begin=\"10\" end=\"20\"><name>main</name>"
    "<paradigm>compiler</paradigm><role>function</role><attr key=\"rk\" value=\"rv\"/></region>\n"
    "<region id=\"2\"><name>f</name><mangled_name>_Z1fv</mangled_name></region>\n"
    "<cnode id=\"1\" calleeId=\"4\" line=\"5\" mod=\"a.c\">\n"
    "<parameter partype=\"numeric\" parkey=\"n\" parvalue=\"123456789.125\"/>\n"
    "<parameter partype=\"string\" parkey=\"s\" parvalue=\"a&quot;b\"/>\n"
    "<attr key=\"ck\" value=\"cv\"/>\n"
    "<cnode id=\"0\" calleeId=\"2\"></cnode>\n"
    "</cnode>\n"
    "<cnode id=\"2\" calleeId=\"2\"/>\n"
    "</program>\n"
    "<system>\n"
    "<systemtreenode Id=\"5\"><name>m</name><class>machine</class><descr>d</descr>"
    "<attr key=\"platform\" value=\"x\"/>\n"
    "<systemtreenode Id=\"6\"><name>r</name><class>rack</class>\n"
    "<locationgroup Id=\"0\"><name>p0</name><rank>0</rank><type>process</type>"
    "<attr key=\"gk\" value=\"gv\"/>\n"
    "<location Id=\"1\"><name>t</name><rank>0</rank><type>thread</type></location>\n"
    "<location Id=\"2\"><name>g</name><rank>1</rank><type>gpu</type>"
    "<attr key=\"lk\" value=\"lv\"/></location>\n"
    "</locationgroup>\n"
    "<locationgroup Id=\"1\"><name>a</name><rank>1</rank><type>accelerator</type>\n"
    "<location Id=\"0\"><name>mt</name><rank>0</rank><type>metric</type></location>\n"
    "</locationgroup>\n"
    "</systemtreenode></systemtreenode>\n"
    "<topologies>\n"
    "<cart name=\"P x T\" ndims=\"2\"><dim name=\"P\" size=\"2\" periodic=\"true\"/>"
    "<dim size=\"3\" periodic=\"false\"/>\n"
    "<coord locId=\"2\">1 2</coord><coord lgId=\"1\"> 0\n1 </coord><coord stnId=\"1\">0 0</coord>\n"
    "</cart>\n"
    "<cart ndims=\"1\"><dim size=\"1\" periodic=\"false\"/><coord thrdId=\"0\">0</coord></cart>\n"
    "</topologies>\n"
    "</system>\n"
    "</cube>\n";

static void expect_attr(const cubex_attrs *at, size_t i, const char *key, const char *value)
{
    assert_true(i < at->n);
    assert_string_equal(at->items[i].key, key);
    assert_string_equal(at->items[i].value, value);
}

static void check_every_metric(const cubex_anchor *a)
{
    assert_int_equal(a->num_metrics, 3);
    const cubex_metric_def *t = &a->metrics[0], *d = &a->metrics[1], *o = &a->metrics[2];
    assert_int_equal(t->id, 7);
    assert_int_equal(t->type, CUBEX_METRIC_INCLUSIVE);
    assert_int_equal(t->convertible, 0);
    assert_int_equal(t->cacheable, 0);
    assert_false(t->ghost);
    assert_string_equal(t->descr, "all <time>");
    assert_string_equal(t->url, "@mirror@t.html");
    assert_null(t->val);
    expect_attr(&t->attrs, 0, "k", "v");
    assert_int_equal(d->parent, 0);
    assert_int_equal(o->parent, 0);
    assert_int_equal(d->type, CUBEX_METRIC_PREDERIVED_EXCLUSIVE);
    assert_true(d->ghost);
    assert_int_equal(d->convertible, -1);
    assert_string_equal(d->disp_name, ""); /* absent */
    assert_string_equal(d->val, "VOID");
    assert_int_equal(d->dtype.kind, CUBEX_NDOUBLES);
    assert_int_equal(d->dtype.k, 3);
    assert_string_equal(d->cubepl->text, "metric::time()*2");
    expect_attr(&d->cubepl->attrs, 0, "rowwise", "false");
    assert_string_equal(d->cubeplinit->text, "{ ${a}=0; }");
    expect_attr(&d->cubeplinit->attrs, 0, "locationwise", "false");
    assert_int_equal(d->num_aggr, 2);
    assert_string_equal(d->aggr[0].text, "arg1+arg2");
    expect_attr(&d->aggr[0].attrs, 0, "cubeplaggrtype", "plus");
    assert_string_equal(d->aggr[1].text, "arg1-arg2 < 3");
    expect_attr(&d->aggr[1].attrs, 0, "cubeplaggrtype", "minus");
    assert_int_equal(o->type, CUBEX_METRIC_EXCLUSIVE); /* no type attribute */
    assert_false(o->dtype_known);                       /* read as DOUBLE */
    assert_int_equal(o->dtype.kind, CUBEX_DOUBLE);
    assert_string_equal(o->dtype_text, "QUATERNION");
}

static void check_every_program(const cubex_anchor *a)
{
    assert_int_equal(a->num_regions, 2);
    const cubex_region_def *r = &a->regions[0], *f = &a->regions[1];
    assert_int_equal(r->id, 4);
    assert_string_equal(r->mod, "a.c");
    assert_int_equal(r->begin, 10);
    assert_int_equal(r->end, 20);
    assert_string_equal(r->mangled_name, "main"); /* absent: the name */
    assert_string_equal(r->paradigm, "compiler");
    expect_attr(&r->attrs, 0, "rk", "rv");
    assert_string_equal(f->mangled_name, "_Z1fv");
    assert_string_equal(f->paradigm, "unknown");
    assert_string_equal(f->role, "unknown");
    assert_int_equal(f->begin, -1);
    assert_int_equal(a->num_cnodes, 3);
    const cubex_cnode_def *c = a->cnodes;
    assert_int_equal(c[0].id, 1);
    assert_int_equal(c[0].region, 0);
    assert_int_equal(c[0].line, 5);
    assert_string_equal(c[0].mod, "a.c");
    assert_int_equal(c[0].num_params, 2);
    assert_true(c[0].params[0].numeric);
    assert_string_equal(c[0].params[0].key, "n");
    assert_string_equal(c[0].params[0].value, "123456789.125");
    assert_false(c[0].params[1].numeric);
    assert_string_equal(c[0].params[1].value, "a\"b");
    expect_attr(&c[0].attrs, 0, "ck", "cv");
    assert_int_equal(c[1].parent, 0);
    assert_int_equal(c[1].region, 1);
    assert_int_equal(c[1].line, -1);
    assert_int_equal(c[2].parent, CUBEX_NONE);
}

static void check_every_system(const cubex_anchor *a)
{
    assert_int_equal(a->num_stns, 2);
    assert_int_equal(a->stns[0].xml_id, 5);
    assert_string_equal(a->stns[0].descr, "d");
    expect_attr(&a->stns[0].attrs, 0, "platform", "x");
    assert_int_equal(a->stns[1].parent, 0);
    assert_string_equal(a->stns[1].klass, "rack");
    assert_null(a->stns[1].descr);
    assert_int_equal(a->num_groups, 2);
    assert_int_equal(a->groups[0].stn, 1);
    assert_int_equal(a->groups[0].type, CUBEX_LG_PROCESS);
    expect_attr(&a->groups[0].attrs, 0, "gk", "gv");
    assert_int_equal(a->groups[1].type, CUBEX_LG_ACCELERATOR);
    assert_int_equal(a->groups[1].rank, 1);
    assert_int_equal(a->num_locations, 3);
    assert_int_equal(cubex_anchor_location(a, 0), 2);
    assert_int_equal(cubex_anchor_location(a, 1), 0);
    assert_int_equal(cubex_anchor_location(a, 2), 1);
    assert_int_equal(cubex_anchor_location(a, 3), CUBEX_NONE);
    assert_int_equal(a->locations[1].type, CUBEX_LOC_GPU);
    assert_int_equal(a->locations[2].type, CUBEX_LOC_METRIC);
    assert_int_equal(a->locations[2].group, 1);
    expect_attr(&a->locations[1].attrs, 0, "lk", "lv");
    assert_int_equal(a->num_carts, 2);
    const cubex_cart_def *c = &a->carts[0];
    assert_string_equal(c->name, "P x T");
    assert_int_equal(c->ndims, 2);
    assert_string_equal(c->dims[0].name, "P");
    assert_true(c->dims[0].periodic);
    assert_null(c->dims[1].name);
    assert_int_equal(c->dims[1].size, 3);
    assert_int_equal(c->num_coords, 3);
    assert_int_equal(c->coords[0].kind, CUBEX_COORD_LOCATION);
    assert_int_equal(c->coords[0].c[1], 2);
    assert_int_equal(c->coords[1].kind, CUBEX_COORD_GROUP);
    assert_int_equal(c->coords[1].c[0], 0);
    assert_int_equal(c->coords[1].c[1], 1);
    assert_int_equal(c->coords[2].kind, CUBEX_COORD_STN);
    assert_null(a->carts[1].name);
    assert_int_equal(a->carts[1].coords[0].kind, CUBEX_COORD_THREAD);
}

static void check_every(const cubex_anchor *a)
{
    assert_string_equal(a->version, "4.5");
    expect_attr(&a->attrs, 0, "Creator", "a & b");
    expect_attr(&a->attrs, 1, "CUBE_CT_AGGR", "SUM");
    assert_int_equal(a->num_mirrors, 2);
    assert_string_equal(a->mirrors[1], "http://m2/");
    assert_string_equal(a->metrics_title, "Metrics");
    assert_null(a->program_title);
    assert_int_equal(a->unknown_elements, 1);
    assert_string_equal(a->first_unknown, "unknownchild");
    assert_int_equal(a->first_unknown_line, 19);
    check_every_metric(a);
    check_every_program(a);
    check_every_system(a);
}

/* gzip-compressed copy of n bytes (the caller frees it). */
static unsigned char *gzip_of(const void *data, size_t n, size_t *out_len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n);
    unsigned char *out = malloc(cap);
    assert_non_null(out);
    z.next_in = (unsigned char *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out_len = z.total_out;
    deflateEnd(&z);
    return out;
}

static void test_every_element(void **state)
{
    (void)state;
    cube_status st;
    cubex_anchor *a = cubex_anchor_parse(every_element, strlen(every_element), "every", &st);
    if (!a)
        fail_msg("%s", st.message);
    assert_false(a->gzip);
    check_every(a);
    cubex_anchor_free(a);
    size_t zn;
    unsigned char *z = gzip_of(every_element, strlen(every_element), &zn);
    a = cubex_anchor_parse(z, zn, "every.gz", &st);
    if (!a)
        fail_msg("%s", st.message);
    assert_true(a->gzip);
    check_every(a);
    cubex_anchor_free(a);
    free(z);
}

/* ---- hostile anchors --------------------------------------------------------------- */

/* The minimal file's anchor.xml (plain), NUL-terminated. */
static char *minimal_anchor(size_t *len)
{
    cubex_tar *t;
    cubex_anchor *a = read_anchor("mkcubex_minimal", &t);
    cubex_anchor_free(a);
    const cubex_member *m = cubex_tar_find(t, "anchor.xml");
    char *text = malloc(m->size + 1);
    assert_non_null(text);
    cube_status st;
    assert_int_equal(cubex_tar_pread(t, m, 0, text, m->size, &st), 0);
    text[m->size] = '\0';
    *len = m->size;
    cubex_tar_close(t);
    return text;
}

/* text with the first `from` replaced by `to` (the caller frees it). */
static char *replaced(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at)
        fail_msg("\"%s\" is not in the anchor", from);
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    size_t head = (size_t)(at - text);
    memcpy(out, text, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

/* Parsing fails with `code` and "hostile: member anchor.xml: <where>..."
 * containing `what`. */
static void expect_failure(const void *data, size_t n, cube_code code, const char *where,
                           const char *what)
{
    cube_status st;
    cubex_anchor *a = cubex_anchor_parse(data, n, "hostile", &st);
    if (a)
        fail_msg("accepted; expected \"%s\"", what);
    char prefix[128];
    snprintf(prefix, sizeof prefix, "hostile: member anchor.xml: %s", where);
    if (st.code != code || strncmp(st.message, prefix, strlen(prefix)) != 0 ||
        !strstr(st.message, what))
        fail_msg("code %d \"%s\"; expected code %d \"%s...%s\"", (int)st.code, st.message,
                 (int)code, prefix, what);
    assert_null(strchr(st.message, '\n'));
}

static const struct {
    const char *from, *to;
    cube_code code;
    const char *where, *what;
} variants[] = {
    {"<cube version=\"4.4\">", "<cube version=\"4.6\">", CUBE_EUNSUPPORTED, "line 3: ",
     "unsupported CUBE version \"4.6\""},
    {"<cube version=\"4.4\">", "<cube>", CUBE_EFORMAT, "line 3: ", "needs an attribute version"},
    {"<cube version=\"4.4\">", "<cubex version=\"4.4\">", CUBE_EFORMAT, "line 3: ",
     "expected the root element <cube"},
    {"calleeId=\"5\"", "calleeId=\"99\"", CUBE_EFORMAT, "line 92: ",
     "calleeId 99 names no region"},
    {"<cnode id=\"4\"", "<cnode id=\"3\"", CUBE_EFORMAT, "line 92: ", "cnode id 3 is defined twice"},
    {"<metric id=\"2\"", "<metric id=\"0\"", CUBE_EFORMAT, "line 26: ",
     "metric id 0 is defined twice"},
    {"<metric id=\"2\"", "<metric id=\"-2\"", CUBE_EFORMAT, "line 26: ",
     "<metric id=...> must be a non-negative decimal integer, found \"-2\""},
    {"<cnode id=\"4\"", "<cnode", CUBE_EFORMAT, "line 92: ", "<cnode> needs an attribute id"},
    {"<location Id=\"1\">", "<location Id=\"2\">", CUBE_EFORMAT, "line ",
     "location ids must be 0 ... 1"},
    {"<location Id=\"1\">", "<location Id=\"0\">", CUBE_EFORMAT, "line ",
     "location id 0 is defined twice"},
    {"<type>thread</type>", "<type>fiber</type>", CUBE_EFORMAT, "line ",
     "expected <type> thread, gpu or metric, found \"fiber\""},
    {"<type>process</type>", "<type>team</type>", CUBE_EFORMAT, "line ",
     "expected <type> process, metrics or accelerator"},
    {"<rank>1</rank>", "<rank>one</rank>", CUBE_EFORMAT, "line ", "<rank> must be a non-negative"},
    {"<location Id=\"1\">\n            <name>thread 0</name>\n            <rank>0</rank>\n"
     "            <type>thread</type>\n          </location>\n", "", CUBE_EFORMAT, "line ",
     "<locationgroup> without <location>"},
    {"<topologies>\n    </topologies>",
     "<topologies><cart ndims=\"2\"><dim size=\"2\" periodic=\"false\"/><dim size=\"1\" "
     "periodic=\"false\"/><coord locId=\"0\">2 0</coord></cart></topologies>",
     CUBE_EFORMAT, "line ", "each below its dimension's size, found \"2 0\""},
    {"<topologies>\n    </topologies>",
     "<topologies><cart ndims=\"1\"><dim size=\"2\" periodic=\"false\"/>"
     "<coord locId=\"7\">1</coord></cart></topologies>",
     CUBE_EFORMAT, "line ", "<coord locId=\"7\">: no such entity"},
    {"<topologies>\n    </topologies>",
     "<topologies><cart ndims=\"2\"><dim size=\"2\" periodic=\"false\"/></cart></topologies>",
     CUBE_EFORMAT, "line ", "<cart ndims=\"2\"> has 1 <dim>s"},
    {"<topologies>\n    </topologies>",
     "<topologies><cart ndims=\"1\"><dim size=\"0\" periodic=\"false\"/></cart></topologies>",
     CUBE_EFORMAT, "line ", "<dim size=...> must be positive"},
    {"<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
     "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE cube [<!ENTITY a \"b\">]>",
     CUBE_EFORMAT, "line 1: ", "DOCTYPE is not allowed"},
    {"<doc>", "<doc><a x=\"1\" x=\"2\"/>", CUBE_EFORMAT, "line 5: ", "not well-formed XML"},
    {"<cnode id=\"4\"", "<cnode id=\"4\" line=\"x\"", CUBE_EFORMAT, "line 92: ",
     "<cnode line=...> must be a decimal integer, found \"x\""},
    /* an id longer than any number: its leading zeros still count */
    {"<cnode id=\"4\"",
     "<cnode id=\"00000000000000000000000000000000000000000000000000000000000000003\"",
     CUBE_EFORMAT, "line 92: ", "cnode id 3 is defined twice"},
    {"<region id=\"5\"", "<region id=\"1\"", CUBE_EFORMAT, "line 76: ",
     "region id 1 is defined twice"},
    {"</program>", "<region id=\"9\"/></program>", CUBE_EFORMAT, "line ",
     "<region> after the first <cnode>"},
    {"</topologies>",
     "</topologies><systemtreenode Id=\"9\"><name>n</name><class>c</class><locationgroup "
     "Id=\"9\"><name>g</name><rank>2</rank><type>process</type><location Id=\"2\">",
     CUBE_EFORMAT, "line ", "<location> after <topologies>"},
};

static void test_hostile_variants(void **state)
{
    (void)state;
    size_t n;
    char *text = minimal_anchor(&n);
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
        char *v = replaced(text, variants[i].from, variants[i].to);
        expect_failure(v, strlen(v), variants[i].code, variants[i].where, variants[i].what);
        /* the same inside gzip */
        size_t zn;
        unsigned char *z = gzip_of(v, strlen(v), &zn);
        expect_failure(z, zn, variants[i].code, variants[i].where, variants[i].what);
        free(z);
        free(v);
    }
    /* lines dropped before the declaration still count */
    char *v = replaced(text, "<cube version=\"4.4\">", "<cube version=\"2.0\">");
    size_t len = strlen(v) + 3;
    char *lead = malloc(len + 1);
    assert_non_null(lead);
    snprintf(lead, len + 1, "\n \n%s", v);
    expect_failure(lead, strlen(lead), CUBE_EUNSUPPORTED, "line 5: ", "\"2.0\"");
    free(lead);
    free(v);
    expect_failure("", 0, CUBE_EFORMAT, "line 1: ", "found an empty member");
    expect_failure(" \n", 2, CUBE_EFORMAT, "line 2: ", "found an empty member");
    expect_failure("hello", 5, CUBE_EFORMAT, "line 1: ", "not well-formed XML");
    free(text);
}

/* A tag longer than 16 MiB is refused, whether its bytes are names and
 * blanks or a quoted value (each skipped as a run). */
static void test_long_tag(void **state)
{
    (void)state;
    size_t n;
    char *text = minimal_anchor(&n);
    size_t big = ((size_t)16 << 20) + 10;
    char *fill = malloc(big + 16);
    assert_non_null(fill);
    for (int quoted = 0; quoted < 2; quoted++) {
        char *f = fill;
        f += sprintf(f, quoted ? "<doc a=\"" : "<doc ");
        memset(f, quoted ? 'x' : ' ', big);
        strcpy(f + big, quoted ? "\">" : ">");
        char *v = replaced(text, "<doc>", fill);
        expect_failure(v, strlen(v), CUBE_EFORMAT, "line ", "a tag longer than 16 MiB");
        free(v);
    }
    free(fill);
    free(text);
}

/* Every prefix of data shorter than `complete` bytes fails cleanly. */
static void expect_prefixes_fail(const void *data, size_t complete)
{
    for (size_t k = 0; k < complete; k++) {
        cube_status st;
        cubex_anchor *a = cubex_anchor_parse(data, k, "cut", &st);
        if (a)
            fail_msg("a prefix of %zu of %zu bytes was accepted", k, complete);
        assert_int_equal(st.code, CUBE_EFORMAT);
        assert_true(strncmp(st.message, "cut: member anchor.xml: ", 24) == 0);
    }
}

/* Every prefix of the anchor, plain and compressed, fails cleanly. */
static void test_truncated(void **state)
{
    (void)state;
    size_t n;
    char *text = minimal_anchor(&n);
    const char *end = strstr(text, "</cube>");
    assert_non_null(end);
    expect_prefixes_fail(text, (size_t)(end - text) + strlen("</cube>"));
    size_t zn;
    unsigned char *z = gzip_of(text, n, &zn);
    expect_prefixes_fail(z, zn);
    /* corrupt compressed data */
    z[zn / 2] ^= 0x55;
    z[zn / 2 + 1] ^= 0xAA;
    cube_status st;
    assert_null(cubex_anchor_parse(z, zn, "bad", &st));
    assert_int_equal(st.code, CUBE_EFORMAT);
    free(z);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files),
        cmocka_unit_test(test_cube3_documents),
        cmocka_unit_test(test_every_element),
        cmocka_unit_test(test_hostile_variants),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_long_tag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
