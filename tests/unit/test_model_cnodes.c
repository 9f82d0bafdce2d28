/*
 * test_model_cnodes.c - how the model stores its many small entities:
 * call-tree nodes from an arena that stay put while the tree grows,
 * call-site modules interned (one shared copy per distinct string, with the
 * right text), a large tree freed without leaks (LeakSanitizer under
 * SANITIZE=1), the preorder walk over the tree and the depth of each node,
 * and processes and threads from the same arena.
 *
 * A test of internals: it includes core/keymap_private.h to test the
 * string set the model interns modules in, and core/cube_private.h to
 * check a node's child array against its capacity.  Everything else is
 * read through the public accessors.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include "core/cube_private.h"
#include "core/keymap_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NUM_MODS = 37 };

/* The module of call path i, formatted into `buf` so that the text handed
 * to the library is never the same pointer twice. */
static const char *mod_of(size_t i, char *buf, size_t len)
{
    if (i % NUM_MODS == 0)
        return "";
    snprintf(buf, len, "src/module_%zu.c", i % NUM_MODS);
    return buf;
}

/* A tree of `n` call paths under root node 0.  Breadth-first: node i's
 * parent is node (i - 1) / 3, so most parents have three children.  Else
 * chains of five under the root, defined in the order a file lists them
 * (depth first), so that a written and read copy numbers them alike. */
static cube_t *build_tree(size_t n, int breadth_first)
{
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_region *f = cube_def_region(c, "f", 1, 9, "", "", "f.c");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        size_t up = breadth_first ? (i - 1) / 3 : i % 5 ? i - 1 : 0;
        cube_cnode *parent = i ? cube_get_cnode(c, up) : NULL;
        cube_cnode *node = cube_def_cnode_cs(c, f, mod_of(i, buf, sizeof buf), (int)i, parent);
        assert_non_null(node);
        assert_ptr_not_equal(cube_cnode_mod(node), buf);
    }
    assert_string_equal(cube_error(c), "");
    return c;
}

static void test_mods_shared_with_right_text(void **state)
{
    (void)state;
    size_t n = 20000;
    cube_t *c = build_tree(n, 1);
    assert_int_equal(cube_num_cnodes(c), n);
    const char *first[NUM_MODS] = {NULL};
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        const cube_cnode *node = cube_get_cnode(c, i);
        assert_string_equal(cube_cnode_mod(node), mod_of(i, buf, sizeof buf));
        /* every node with this module points at one copy */
        if (!first[i % NUM_MODS])
            first[i % NUM_MODS] = cube_cnode_mod(node);
        assert_ptr_equal(cube_cnode_mod(node), first[i % NUM_MODS]);
    }
    for (size_t a = 0; a < NUM_MODS; a++)
        for (size_t b = a + 1; b < NUM_MODS; b++)
            assert_ptr_not_equal(first[a], first[b]);
    /* a NULL module and the call-site-less definition are the same "" */
    cube_region *g = cube_def_region(c, "g", -1, -1, "", "", "");
    cube_cnode *no_mod = cube_def_cnode_cs(c, g, NULL, -1, NULL);
    cube_cnode *plain = cube_def_cnode(c, g, cube_get_cnode(c, 5));
    assert_non_null(no_mod);
    assert_non_null(plain);
    assert_string_equal(cube_cnode_mod(no_mod), "");
    assert_ptr_equal(cube_cnode_mod(no_mod), first[0]);
    assert_ptr_equal(cube_cnode_mod(plain), first[0]);
    cube_free(c);
}

/* Call paths in a row with one module share its copy, also when the
 * caller passes the same buffer with new text each time. */
static void test_mods_in_a_row(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_region *f = cube_def_region(c, "f", 1, 9, "", "", "f.c");
    assert_non_null(f);
    char buf[16];
    const char *want[] = {"a.c", "a.c", "b.c", "b.c", "a.c", "", NULL, "a.c"};
    const char *got[8];
    for (size_t i = 0; i < 8; i++) {
        if (want[i])
            strcpy(buf, want[i]);
        cube_cnode *n = cube_def_cnode_cs(c, f, want[i] ? buf : NULL, (int)i, NULL);
        assert_non_null(n);
        got[i] = cube_cnode_mod(n);
        assert_ptr_not_equal(got[i], buf);
        assert_string_equal(got[i], want[i] ? want[i] : "");
    }
    assert_ptr_equal(got[0], got[1]);
    assert_ptr_equal(got[2], got[3]);
    assert_ptr_not_equal(got[1], got[2]);
    assert_ptr_equal(got[4], got[0]);
    assert_ptr_equal(got[5], got[6]);
    assert_ptr_equal(got[7], got[0]);
    cube_free(c);
}

/* Nodes are never moved: pointers taken early are still the nodes after a
 * hundred thousand more, and every link of the tree is consistent. */
static void test_large_tree_links_and_free(void **state)
{
    (void)state;
    size_t n = 150000;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_region *f = cube_def_region(c, "f", -1, -1, "", "", "");
    cube_cnode *root = cube_def_cnode_cs(c, f, "main.c", 7, NULL);
    assert_non_null(root);
    for (size_t i = 1; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "m%zu.c", i % 300);
        /* a chain with a fan every tenth level: deep, and some wide nodes */
        cube_cnode *parent = cube_get_cnode(c, i % 10 ? i - 1 : i / 2);
        assert_non_null(cube_def_cnode_cs(c, f, buf, (int)i, parent));
    }
    assert_ptr_equal(cube_get_cnode(c, 0), root);
    assert_int_equal(cube_cnode_id(root), 0);
    assert_int_equal(cube_cnode_line(root), 7);
    assert_string_equal(cube_cnode_mod(root), "main.c");
    assert_int_equal(cube_cnode_depth(root), 0);
    size_t children = 0, deepest = 0;
    for (size_t i = 0; i < n; i++) {
        const cube_cnode *node = cube_get_cnode(c, i);
        assert_int_equal(cube_cnode_index(node), i);
        size_t nc = cube_cnode_num_children(node);
        assert_true(nc <= node->children_cap);
        for (size_t k = 0; k < nc; k++) {
            const cube_cnode *child = cube_cnode_child(node, k);
            assert_non_null(child);
            assert_ptr_equal(cube_cnode_parent(child), node);
            /* a child is one level below its parent */
            assert_int_equal(cube_cnode_depth(child), cube_cnode_depth(node) + 1);
        }
        assert_null(cube_cnode_child(node, nc)); /* past the last child */
        children += nc;
        if (cube_cnode_depth(node) > deepest)
            deepest = cube_cnode_depth(node);
        if (i) {
            char buf[32];
            snprintf(buf, sizeof buf, "m%zu.c", i % 300);
            assert_string_equal(cube_cnode_mod(node), buf);
            assert_int_equal(cube_cnode_line(node), (long)i);
        }
    }
    /* the deepest node's depth counts the edges, depth_max the levels */
    assert_int_equal(cube_cnode_depth_max(c), deepest + 1);
    assert_int_equal(children, n - 1);
    assert_int_equal(cube_num_root_cnodes(c), 1);
    cube_free(c); /* LeakSanitizer checks that this returned everything */
}

/* Shared modules write and read back as the same model, and the model read
 * shares them too. */
static void test_shared_mods_round_trip(void **state)
{
    (void)state;
    cube_t *c = build_tree(500, 0);
    cube_metric *m = cube_def_met(c, "Time", "time", "FLOAT", "sec", "", "", "", NULL);
    cube_thread *t = cube_def_thrd(
        c, "t", 0, cube_def_proc(c, "P", 0, cube_def_node(c, "n", cube_def_mach(c, "m", ""))));
    for (size_t i = 0; i < cube_num_cnodes(c); i++)
        cube_set_sev(c, m, cube_get_cnode(c, i), t, (double)i);
    char *path = write_with(c, cube_write_all);
    cube_t *back = read_ok(path);
    assert_same_model(c, back);
    for (size_t i = NUM_MODS; i < cube_num_cnodes(back); i++)
        assert_ptr_equal(cube_cnode_mod(cube_get_cnode(back, i)),
                         cube_cnode_mod(cube_get_cnode(back, i % NUM_MODS)));
    cube_free(back);
    cube_free(c);
    unlink(path);
    free(path);
}

/* The string set under the model: one copy per text, stable while it grows,
 * "" included, and not confused with a prefix or an extension. */
static void test_keymap_intern(void **state)
{
    (void)state;
    keymap m = {0};
    const char *empty = keymap_intern(&m, "");
    const char *ab = keymap_intern(&m, "ab");
    assert_non_null(empty);
    assert_non_null(ab);
    assert_string_equal(empty, "");
    assert_string_equal(ab, "ab");
    assert_ptr_not_equal(keymap_intern(&m, "a"), ab);
    assert_ptr_not_equal(keymap_intern(&m, "abc"), ab);
    const char *kept[5000];
    for (int i = 0; i < 5000; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "string %d", i);
        kept[i] = keymap_intern(&m, buf);
        assert_non_null(kept[i]);
        assert_ptr_not_equal(kept[i], buf);
    }
    assert_int_equal(m.count, 5004);
    for (int i = 0; i < 5000; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "string %d", i);
        assert_ptr_equal(keymap_intern(&m, buf), kept[i]);
        assert_string_equal(kept[i], buf);
    }
    char ab_copy[] = "ab";
    assert_ptr_equal(keymap_intern(&m, ab_copy), ab);
    assert_ptr_equal(keymap_intern(&m, ""), empty);
    assert_int_equal(m.count, 5004);
    /* the key is the string with its NUL: keymap_get finds it that way */
    assert_int_not_equal(keymap_get(&m, "ab", 3), KEYMAP_ABSENT);
    keymap_free(&m);
}

/* The preorder walk against the definition: a node comes right after its
 * parent or after the last node of its previous sibling's subtree; levels,
 * depths and roots follow the parent links; every call path comes exactly
 * once, and the deepest level is cube_cnode_depth_max. */
static void check_walk(const cube_t *c)
{
    size_t n = cube_num_cnodes(c), seen = 0, level, deepest = 0;
    unsigned char *visited = calloc(n ? n : 1, 1);
    const cube_cnode *prev = NULL;
    cube_tree_walk *w = cube_tree_walk_start(c);
    assert_non_null(w);
    const cube_cnode *cn;
    size_t next_root = 0;
    while ((cn = cube_tree_walk_next(w, &level))) {
        size_t index = cube_cnode_index(cn);
        assert_true(index < n);
        assert_false(visited[index]);
        visited[index] = 1;
        seen++;
        size_t depth = 0;
        const cube_cnode *root = cn;
        while (cube_cnode_parent(root))
            root = cube_cnode_parent(root), depth++;
        assert_int_equal(level, depth);
        assert_int_equal(cube_cnode_depth(cn), depth);
        assert_ptr_equal(cube_tree_walk_root(w), root);
        const cube_cnode *parent = cube_cnode_parent(cn);
        if (!parent) {
            assert_int_equal(cube_cnode_depth(cn), 0);
            assert_ptr_equal(cn, cube_get_root_cnode(c, next_root++));
        } else if (cube_cnode_child(parent, 0) == cn) {
            assert_int_equal(cube_cnode_depth(cn), cube_cnode_depth(parent) + 1);
            assert_ptr_equal(prev, parent); /* the first child follows its parent */
        } else {
            assert_int_equal(cube_cnode_depth(cn), cube_cnode_depth(parent) + 1);
            /* a later child follows the deepest last descendant of its
             * previous sibling */
            size_t k = 0;
            while (cube_cnode_child(parent, k) != cn)
                k++;
            const cube_cnode *last = cube_cnode_child(parent, k - 1);
            while (cube_cnode_num_children(last))
                last = cube_cnode_child(last, cube_cnode_num_children(last) - 1);
            assert_ptr_equal(prev, last);
        }
        if (level + 1 > deepest)
            deepest = level + 1;
        prev = cn;
    }
    assert_null(cube_tree_walk_next(w, &level)); /* and stays ended */
    cube_tree_walk_free(w);
    assert_int_equal(seen, n);
    assert_int_equal(next_root, cube_num_root_cnodes(c));
    assert_int_equal(cube_cnode_depth_max(c), deepest);
    free(visited);
}

static void test_tree_walk_preorder(void **state)
{
    (void)state;
    for (const char *const *f = real_cube_files; *f; f++) {
        cube_t *c = read_ok(testdata(*f));
        check_walk(c);
        cube_free(c);
    }
    /* several roots, and an empty tree */
    cube_t *c = read_ok(testdata("reader/tolerate-id-gaps.cube"));
    check_walk(c);
    cube_free(c);
    c = cube_create();
    check_walk(c);
    assert_int_equal(cube_cnode_depth_max(c), 0);
    cube_free(c);
    /* a chain 100 000 deep: walked without recursion, every node once and
     * in order (the walk took its memory at the start: it cannot stop
     * short), each at its depth */
    c = deep_call_chain(100000);
    cube_tree_walk *w = cube_tree_walk_start(c);
    assert_non_null(w);
    size_t level, k = 0;
    const cube_cnode *cn;
    while ((cn = cube_tree_walk_next(w, &level))) {
        assert_int_equal(level, k);
        assert_ptr_equal(cn, cube_get_cnode(c, k)); /* the chain: node k at level k */
        assert_int_equal(cube_cnode_depth(cn), k);
        assert_ptr_equal(cube_tree_walk_root(w), cube_get_cnode(c, 0));
        k++;
    }
    assert_null(cube_tree_walk_next(w, &level));
    cube_tree_walk_free(w);
    assert_int_equal(k, 100000);
    assert_int_equal(cube_cnode_depth(cube_get_cnode(c, 99999)), 99999);
    assert_int_equal(cube_cnode_depth_max(c), 100000);
    cube_free(c);
}

/* The depth of a node: 0 for each root, its parent's plus one below, on a
 * hand-made tree with two roots and on every real experiment; the call
 * tree's depth (cube_cnode_depth_max, levels) is the deepest node's plus
 * one. */
static void test_cnode_depth(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    assert_non_null(c);
    cube_region *f = cube_def_region(c, "f", -1, -1, "", "", "");
    cube_cnode *r0 = cube_def_cnode(c, f, NULL);
    cube_cnode *a = cube_def_cnode(c, f, r0);
    cube_cnode *b = cube_def_cnode(c, f, a);
    cube_cnode *a2 = cube_def_cnode(c, f, r0);
    cube_cnode *r1 = cube_def_cnode(c, f, NULL);
    cube_cnode *d = cube_def_cnode(c, f, r1);
    assert_string_equal(cube_error(c), "");
    assert_int_equal(cube_cnode_depth(r0), 0);
    assert_int_equal(cube_cnode_depth(r1), 0);
    assert_int_equal(cube_cnode_depth(a), 1);
    assert_int_equal(cube_cnode_depth(a2), 1);
    assert_int_equal(cube_cnode_depth(d), 1);
    assert_int_equal(cube_cnode_depth(b), 2);
    assert_int_equal(cube_cnode_depth_max(c), 3);
    /* a node defined under an existing one later: its parent's plus one */
    cube_cnode *e = cube_def_cnode(c, f, b);
    assert_int_equal(cube_cnode_depth(e), 3);
    assert_int_equal(cube_cnode_depth_max(c), 4);
    cube_free(c);

    for (const char *const *file = real_cube_files; *file; file++) {
        c = read_ok(testdata(*file));
        size_t deepest = 0, roots = 0;
        for (size_t i = 0; i < cube_num_cnodes(c); i++) {
            const cube_cnode *cn = cube_get_cnode(c, i), *parent = cube_cnode_parent(cn);
            if (parent) {
                assert_int_equal(cube_cnode_depth(cn), cube_cnode_depth(parent) + 1);
            } else {
                assert_int_equal(cube_cnode_depth(cn), 0);
                roots++;
            }
            if (cube_cnode_depth(cn) > deepest)
                deepest = cube_cnode_depth(cn);
        }
        assert_int_equal(roots, cube_num_root_cnodes(c));
        assert_int_equal(cube_cnode_depth_max(c), cube_num_cnodes(c) ? deepest + 1 : 0);
        cube_free(c);
    }
}

/* Processes and threads come from the model's arena too: many of them keep
 * their names, ranks and links, and cube_free releases them all (the
 * sanitizer build checks for leaks). */
static void test_many_threads_in_the_arena(void **state)
{
    (void)state;
    cube_t *c = cube_create();
    cube_node *node = cube_def_node(c, "node", cube_def_mach(c, "machine", ""));
    enum { NPROC = 20000 };
    char name[32];
    for (int p = 0; p < NPROC; p++) {
        snprintf(name, sizeof name, "process %d", p);
        cube_process *proc = cube_def_proc(c, name, p, node);
        assert_non_null(proc);
        for (int t = 0; t < 2; t++) {
            snprintf(name, sizeof name, "thread %d.%d", p, t);
            assert_non_null(cube_def_thrd(c, name, t, proc));
        }
    }
    assert_string_equal(cube_error(c), "");
    assert_int_equal(cube_num_processes(c), NPROC);
    assert_int_equal(cube_num_threads(c), 2 * NPROC);
    for (size_t i = 0; i < cube_num_threads(c); i++) {
        const cube_thread *t = cube_get_thread(c, i);
        snprintf(name, sizeof name, "thread %zu.%zu", i / 2, i % 2);
        assert_string_equal(cube_thread_name(t), name);
        assert_int_equal(cube_thread_rank(t), (int64_t)(i % 2));
        const cube_process *p = cube_thread_process(t);
        assert_ptr_equal(p, cube_get_process(c, i / 2));
        assert_int_equal(cube_process_num_threads(p), 2);
        assert_ptr_equal(cube_process_thread(p, i % 2), t);
        assert_int_equal(cube_process_rank(p), (int64_t)(i / 2));
        snprintf(name, sizeof name, "process %zu", i / 2);
        assert_string_equal(cube_process_name(p), name);
    }
    cube_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mods_shared_with_right_text),
        cmocka_unit_test(test_mods_in_a_row),
        cmocka_unit_test(test_large_tree_links_and_free),
        cmocka_unit_test(test_shared_mods_round_trip),
        cmocka_unit_test(test_keymap_intern),
        cmocka_unit_test(test_tree_walk_preorder),
        cmocka_unit_test(test_cnode_depth),
        cmocka_unit_test(test_many_threads_in_the_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
