/*
 * view_modes.c - the value modes of the Cube display (CUBE3 manual,
 * section 2.2.3): which mode is defined for which tree, and the value a
 * mode shows.  The definitions are in cube_views.h.
 */
#include "views/view_private.h"

#include <string.h>

static const char *const mode_names[CUBE_NUM_VALUE_MODES] = {
    "absolute",
    "own-root-percent",
    "metric-root-percent",
    "metric-selection-percent",
    "call-root-percent",
    "call-selection-percent",
    "system-root-percent",
    "system-selection-percent",
    "peer-percent",
    "peer-distribution",
    "external-percent",
};

const char *cube_value_mode_name(cube_value_mode mode)
{
    return (unsigned)mode < CUBE_NUM_VALUE_MODES ? mode_names[mode] : NULL;
}

int cube_value_mode_parse(const char *name, cube_value_mode *mode, cube_status *status)
{
    if (!name || !mode) {
        status_set(status, CUBE_EINVAL,
                   "cube_value_mode_parse needs a name and a place for the mode");
        return -1;
    }
    for (unsigned i = 0; i < CUBE_NUM_VALUE_MODES; i++)
        if (strcmp(name, mode_names[i]) == 0) {
            *mode = (cube_value_mode)i;
            status_ok(status);
            return 0;
        }
    status_set(status, CUBE_EINVAL,
               "\"%.200s%s\" is not a value mode (absolute, own-root-percent, "
               "metric-root-percent, metric-selection-percent, call-root-percent, "
               "call-selection-percent, system-root-percent, system-selection-percent, "
               "peer-percent, peer-distribution, external-percent)",
               name, strlen(name) > 200 ? "..." : "");
    return -1;
}

/* pos[kind] = position from the left (0, 1, 2) of each tree; 0 when the
 * place is not valid (no tree, or an order that is not a permutation). */
static int positions(const cube_mode_place *place, int pos[4])
{
    static const cube_tree_kind dflt[3] = {CUBE_TREE_METRIC, CUBE_TREE_CALL, CUBE_TREE_SYSTEM};
    if (!place)
        return 0;
    const cube_tree_kind *order = place->order;
    if (order[0] == 0 && order[1] == 0 && order[2] == 0)
        order = dflt;
    pos[0] = pos[1] = pos[2] = pos[3] = -1;
    for (int i = 0; i < 3; i++) {
        unsigned k = (unsigned)order[i];
        if (k < CUBE_TREE_METRIC || k > CUBE_TREE_SYSTEM || pos[k] >= 0)
            return 0;
        pos[k] = i;
    }
    unsigned t = (unsigned)place->tree;
    return t >= CUBE_TREE_METRIC && t <= CUBE_TREE_SYSTEM;
}

int cube_value_mode_available(cube_value_mode mode, const cube_mode_place *place)
{
    int pos[4];
    if (!positions(place, pos))
        return 0;
    int tree = pos[place->tree], metric = pos[CUBE_TREE_METRIC], call = pos[CUBE_TREE_CALL],
        system = pos[CUBE_TREE_SYSTEM];
    /* A tree left of the metric tree would add up different metrics: all
     * its values are undefined, whatever the mode. */
    if (tree < metric)
        return 0;
    switch (mode) {
    case CUBE_MODE_ABSOLUTE:
    case CUBE_MODE_OWN_ROOT_PERCENT:
        return 1;
    case CUBE_MODE_METRIC_ROOT_PERCENT:
    case CUBE_MODE_METRIC_SELECTION_PERCENT:
        return tree > metric;
    /* The reference must itself be defined: a call or system tree left of
     * the metric tree has undefined values (the manual's example). */
    case CUBE_MODE_CALL_ROOT_PERCENT:
    case CUBE_MODE_CALL_SELECTION_PERCENT:
        return tree > call && call > metric;
    case CUBE_MODE_SYSTEM_ROOT_PERCENT:
    case CUBE_MODE_SYSTEM_SELECTION_PERCENT:
        return tree > system && system > metric;
    case CUBE_MODE_PEER_PERCENT:
    case CUBE_MODE_PEER_DISTRIBUTION:
        return place->tree == CUBE_TREE_SYSTEM;
    case CUBE_MODE_EXTERNAL_PERCENT:
        return metric == 0;
    }
    return 0;
}

/* 100 * value / reference; NaN when the reference is 0 or NaN. */
static double percent(double value, double reference)
{
    if (reference == 0.0 || isnan(reference))
        return NAN;
    if (value == reference)
        return 100.0; /* 100 * v rounds, and (100 * v) / v need not be 100 */
    double scaled = 100.0 * value;
    /* 100 * v / r is exact more often than v / r * 100 (50 of 200 is 25,
     * 120 of 200 is 60); the other order when 100 * v would overflow */
    return isfinite(scaled) || !isfinite(value) ? scaled / reference
                                                : value / reference * 100.0;
}

double cube_value_in_mode(cube_value_mode mode, double value, const cube_mode_refs *refs,
                          const cube_mode_place *place)
{
    if (!cube_value_mode_available(mode, place) || isnan(value))
        return NAN;
    if (place->tree == CUBE_TREE_SYSTEM && place->expanded_system_item)
        return NAN;
    if (mode == CUBE_MODE_ABSOLUTE)
        return value;
    if (!refs)
        return NAN;
    switch (mode) {
    case CUBE_MODE_OWN_ROOT_PERCENT:
        return percent(value, refs->own_root);
    case CUBE_MODE_METRIC_ROOT_PERCENT:
        return percent(value, refs->metric_root);
    case CUBE_MODE_METRIC_SELECTION_PERCENT:
        return percent(value, refs->metric_selection);
    case CUBE_MODE_CALL_ROOT_PERCENT:
        return percent(value, refs->call_root);
    case CUBE_MODE_CALL_SELECTION_PERCENT:
        return percent(value, refs->call_selection);
    case CUBE_MODE_SYSTEM_ROOT_PERCENT:
        return percent(value, refs->system_root);
    case CUBE_MODE_SYSTEM_SELECTION_PERCENT:
        return percent(value, refs->system_selection);
    case CUBE_MODE_PEER_PERCENT:
        return percent(value, refs->peer_max);
    case CUBE_MODE_PEER_DISTRIBUTION:
        if (!(refs->peer_max > refs->peer_min))
            return NAN; /* all peers equal (or NaN): no scale */
        return percent(value - refs->peer_min, refs->peer_max - refs->peer_min);
    case CUBE_MODE_EXTERNAL_PERCENT:
        return percent(value, refs->external_root);
    case CUBE_MODE_ABSOLUTE:
        break;
    }
    return NAN;
}

int cube_peer_range(const double *values, size_t n, double *min, double *max,
                    cube_status *status)
{
    if (!values || !min || !max) {
        status_set(status, CUBE_EINVAL,
                   "cube_peer_range needs the values and places for the minimum and maximum");
        return -1;
    }
    if (n == 0) {
        status_set(status, CUBE_EINVAL, "cube_peer_range: no values (n is 0)");
        return -1;
    }
    if (view_check_not_nan(values, n, "cube_peer_range", status) != 0)
        return -1;
    double lo = values[0], hi = values[0];
    for (size_t i = 0; i < n; i++) {
        if (values[i] < lo)
            lo = values[i];
        if (values[i] > hi)
            hi = values[i];
    }
    *min = lo;
    *max = hi;
    status_ok(status);
    return 0;
}
