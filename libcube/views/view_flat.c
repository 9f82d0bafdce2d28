/*
 * view_flat.c - the flat profile: per region, the exclusive value of its
 * call paths, the inclusive value (outermost paths only, so recursion is
 * not counted twice) and the "Subroutines" value, inclusive minus
 * exclusive.  The definitions and how the manual's text is read are in
 * cube_views.h.
 *
 * One depth-first walk of the call tree with an explicit stack (trees can
 * be 100 000 deep).  For every region, a counter says how many call paths
 * of the current path call it: a node is an outermost call of its region
 * when the counter was 0 on entering it.  Each stack frame holds the
 * subtree sum of its node, allocated only when the subtree has data; on
 * leaving a node its sum moves to the parent's frame (taken over when the
 * parent has none, so a chain with data at its leaf moves one buffer up),
 * and is added to the region's inclusive value when the node was
 * outermost.  Freed buffers are kept in a pool for the next frames.
 *
 * A MAXDOUBLE or MINDOUBLE metric takes the same walk with the larger or
 * smaller value in place of every sum; its Subroutines value is picked up
 * when a child's subtree is left (a maximum cannot be split into inclusive
 * minus exclusive).
 */
#include "views/view_private.h"

#include <stdlib.h>
#include <string.h>

struct cube_flat {
    cube_combine_rule combine; /* the view's */
    unsigned wrap_bits;        /* the view's (view_wrap) */
    int wrap_signed;
    size_t width, nregions;
    double **part[3]; /* by cube_flat_part: nregions rows each, NULL = zero */
};

typedef struct {
    const cube_cnode *node;
    size_t next;  /* next child to visit */
    double *acc;  /* subtree sum so far, NULL = zero */
    int outermost;
} frame;

typedef struct {
    size_t w;
    double **free_list;
    size_t num_free, free_cap;
} acc_pool;

static double *pool_get(acc_pool *p)
{
    if (p->num_free) {
        double *a = p->free_list[--p->num_free];
        memset(a, 0, 2 * (p->w ? p->w : 1) * sizeof *a);
        return a;
    }
    return view_acc_new(p->w);
}

/* Keep a buffer for later, or free it when the pool cannot grow. */
static void pool_put(acc_pool *p, double *a)
{
    if (p->num_free == p->free_cap) {
        size_t cap = p->free_cap ? 2 * p->free_cap : 16;
        double **l = realloc(p->free_list, cap * sizeof *l);
        if (!l) {
            free(a);
            return;
        }
        p->free_list = l;
        p->free_cap = cap;
    }
    p->free_list[p->num_free++] = a;
}

static void pool_free(acc_pool *p)
{
    for (size_t i = 0; i < p->num_free; i++)
        free(p->free_list[i]);
    free(p->free_list);
}

void cube_flat_free(cube_flat *f)
{
    if (!f)
        return;
    for (int k = 0; k < 3; k++) {
        if (!f->part[k])
            continue;
        for (size_t r = 0; r < f->nregions; r++)
            free(f->part[k][r]);
        free(f->part[k]);
    }
    free(f);
}

/* The accumulator of region r in one part, created when absent. */
static double *region_acc(cube_flat *f, int part, size_t r)
{
    if (!f->part[part][r])
        f->part[part][r] = view_acc_new(f->width);
    return f->part[part][r];
}

/* Region r's row in one part = the maximum (minimum) of itself and row; a
 * row created here takes row as it is, so only call paths with data take
 * part. */
static int region_pick(cube_flat *f, int part, size_t r, const double *row)
{
    double *a = f->part[part][r];
    if (a) {
        view_pick_row(a, row, f->width, f->combine);
        return 0;
    }
    if (!(a = f->part[part][r] = view_acc_new(f->width)))
        return -1;
    memcpy(a, row, f->width * sizeof *a);
    return 0;
}

static int push(frame **stack, size_t *sp, size_t *cap, const cube_cnode *node)
{
    if (*sp == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        frame *s = realloc(*stack, ncap * sizeof *s);
        if (!s)
            return -1;
        *stack = s;
        *cap = ncap;
    }
    (*stack)[(*sp)++] = (frame){node, 0, NULL, 0};
    return 0;
}

/* Enter the node on top of the stack. */
static int enter(cube_flat *f, const cube_view *v, frame *fr, size_t *active, acc_pool *pool)
{
    size_t ri = fr->node->callee->index, w = f->width;
    fr->outermost = active[ri]++ == 0;
    const double *row = v->rows[fr->node->index];
    if (!row)
        return 0;
    if (f->combine != CUBE_COMBINE_SUM) {
        if (!(fr->acc = pool_get(pool)))
            return -1;
        memcpy(fr->acc, row, w * sizeof *row);
        return region_pick(f, CUBE_FLAT_EXCLUSIVE, ri, row);
    }
    double *excl = region_acc(f, CUBE_FLAT_EXCLUSIVE, ri);
    double *sub = region_acc(f, CUBE_FLAT_SUBROUTINES, ri);
    fr->acc = pool_get(pool);
    if (!excl || !sub || !fr->acc)
        return -1;
    memcpy(fr->acc, row, w * sizeof *row);
    view_acc_add_row(excl, w, row, 1.0);
    view_acc_add_row(sub, w, row, -1.0); /* Subroutines = inclusive - exclusive */
    return 0;
}

/* Leave the node on top of the stack, of a maximum or minimum: its subtree's
 * value (the node's call-inclusive value) counts in its region's inclusive
 * value when it is outermost, and in the Subroutines value of the parent's
 * region, since the node is a child of a call of that region. */
static int leave_picking(cube_flat *f, frame *stack, size_t sp, acc_pool *pool)
{
    frame *fr = &stack[sp - 1];
    int rc = 0;
    if (fr->outermost)
        rc = region_pick(f, CUBE_FLAT_INCLUSIVE, fr->node->callee->index, fr->acc);
    if (!rc && sp >= 2) {
        frame *parent = &stack[sp - 2];
        rc = region_pick(f, CUBE_FLAT_SUBROUTINES, parent->node->callee->index, fr->acc);
        if (!rc && !parent->acc) {
            parent->acc = fr->acc;
            fr->acc = NULL;
            return 0;
        }
        if (!rc)
            view_pick_row(parent->acc, fr->acc, f->width, f->combine);
    }
    if (rc)
        return rc;
    pool_put(pool, fr->acc);
    fr->acc = NULL;
    return 0;
}

/* Leave the node on top of the stack (its subtree is complete). */
static int leave(cube_flat *f, frame *stack, size_t sp, size_t *active, acc_pool *pool)
{
    frame *fr = &stack[sp - 1];
    size_t ri = fr->node->callee->index, w = f->width;
    active[ri]--;
    if (!fr->acc)
        return 0;
    if (f->combine != CUBE_COMBINE_SUM)
        return leave_picking(f, stack, sp, pool);
    if (fr->outermost) {
        /* (the node itself may have no data: then neither has a row yet) */
        double *incl = region_acc(f, CUBE_FLAT_INCLUSIVE, ri);
        double *sub = region_acc(f, CUBE_FLAT_SUBROUTINES, ri);
        if (!incl || !sub)
            return -1;
        view_acc_add_acc(incl, fr->acc, w);
        view_acc_add_acc(sub, fr->acc, w);
    }
    if (sp >= 2) {
        frame *parent = &stack[sp - 2];
        if (!parent->acc) {
            parent->acc = fr->acc;
            fr->acc = NULL;
            return 0;
        }
        view_acc_add_acc(parent->acc, fr->acc, w);
    }
    pool_put(pool, fr->acc);
    fr->acc = NULL;
    return 0;
}

/* The walk and its steps return 0, or -1 when out of memory: the only way
 * they fail. */
static int walk(cube_flat *f, const cube_view *v)
{
    const cube_t *defs = v->defs;
    size_t *active = calloc(f->nregions ? f->nregions : 1, sizeof *active);
    frame *stack = NULL;
    size_t sp = 0, cap = 0;
    acc_pool pool = {f->width, NULL, 0, 0};
    int rc = active ? 0 : -1;
    size_t nroots = cube_num_root_cnodes(defs);
    for (size_t k = 0; !rc && k < nroots; k++) {
        rc = push(&stack, &sp, &cap, cube_get_root_cnode(defs, k));
        if (!rc)
            rc = enter(f, v, &stack[sp - 1], active, &pool);
        while (!rc && sp) {
            frame *top = &stack[sp - 1];
            if (top->next < top->node->num_children) {
                const cube_cnode *child = top->node->children[top->next++];
                rc = push(&stack, &sp, &cap, child);
                if (!rc)
                    rc = enter(f, v, &stack[sp - 1], active, &pool);
            } else {
                rc = leave(f, stack, sp, active, &pool);
                if (!rc)
                    sp--;
            }
        }
    }
    for (size_t i = 0; i < sp; i++) /* after an error */
        free(stack[i].acc);
    free(stack);
    pool_free(&pool);
    free(active);
    return rc;
}

cube_flat *cube_flat_create(const cube_view *v, cube_status *status)
{
    if (!v) {
        status_set(status, CUBE_EINVAL, "cube_flat_create needs a view");
        return NULL;
    }
    if (v->rows_flavour == CUBE_CALL_INCLUSIVE) {
        status_set(status, CUBE_EINVAL,
                   v->call_flavour == CUBE_CALL_INCLUSIVE
                       ? "cube_flat_create: the view is call-inclusive; the flat profile is "
                         "made from a call-exclusive or stored one"
                       : "cube_flat_create: the view holds the stored values of a metric "
                         "stored call-tree inclusive; the flat profile is made from a "
                         "call-exclusive view");
        return NULL;
    }
    if (v->finished != 1) {
        status_set(status, CUBE_ESTATE,
                   v->finished ? "cube_flat_create: the view's cube_view_finish failed"
                               : "cube_flat_create: the view is not finished (cube_view_finish)");
        return NULL;
    }
    /* past the checks, every failure is one of memory */
    cube_flat *f = calloc(1, sizeof *f);
    int rc = f ? 0 : -1;
    if (!rc) {
        f->combine = v->combine;
        f->wrap_bits = v->wrap_bits;
        f->wrap_signed = v->wrap_signed;
        f->width = v->width;
        f->nregions = cube_num_regions(v->defs);
        for (int k = 0; k < 3 && !rc; k++) {
            f->part[k] = calloc(f->nregions ? f->nregions : 1, sizeof *f->part[k]);
            if (!f->part[k])
                rc = -1;
        }
    }
    if (!rc)
        rc = walk(f, v);
    if (rc) {
        cube_flat_free(f);
        status_set(status, CUBE_ENOMEM, "out of memory");
        return NULL;
    }
    for (int k = 0; k < 3; k++)
        for (size_t r = 0; r < f->nregions; r++)
            if (f->part[k][r]) {
                f->part[k][r] = view_acc_fold(f->part[k][r], f->width);
                view_wrap_values(f->part[k][r], f->width, f->wrap_bits, f->wrap_signed);
            }
    status_ok(status);
    return f;
}

size_t cube_flat_width(const cube_flat *f)
{
    return f ? f->width : 0;
}

const double *cube_flat_row(const cube_flat *f, const cube_region *r, cube_flat_part part)
{
    if (!f || !r || r->index >= f->nregions ||
        (part != CUBE_FLAT_EXCLUSIVE && part != CUBE_FLAT_INCLUSIVE &&
         part != CUBE_FLAT_SUBROUTINES))
        return NULL;
    return f->part[part][r->index];
}

double cube_flat_value(const cube_flat *f, const cube_region *r, cube_flat_part part,
                       size_t i)
{
    if (!f || !r || r->index >= f->nregions || i >= f->width ||
        (part != CUBE_FLAT_EXCLUSIVE && part != CUBE_FLAT_INCLUSIVE &&
         part != CUBE_FLAT_SUBROUTINES))
        return 0.0;
    const double *row = f->part[part][r->index];
    return row ? row[i] : view_neutral(f->combine); /* no row: nothing contributed */
}
