/*
 * anchor_write_private.h - the definitions member of a CUBE 4 archive
 * (anchor.xml) written from the records of anchor_private.h, in the one
 * layout the reference library's strict lexer accepts.
 *
 * The layout: the literal declaration <?xml version="1.0"
 * encoding="UTF-8"?>, <cube version="4.4"> (whatever version the records
 * were read from: 4.4 is what every reader since that version takes),
 * double-quoted attributes in a fixed order, one element per line without
 * indentation, the sections and children in the order the format fixes:
 * cube attributes, <doc><mirrors>, the metric tree (per metric disp_name,
 * uniq_name, dtype, uom, [val], url, descr, [cubepl], [cubeplinit],
 * cubeplaggr..., attrs, child metrics), the regions, then the call tree
 * (per cnode parameters, attrs, children), the system tree (per node
 * name, class, [descr], attrs, its location groups, then its child nodes;
 * per group and location name, rank, type, attrs), the topologies.  In
 * every text and attribute value exactly & < > ' " are escaped (as
 * &amp; &lt; &gt; &apos; &quot;), nothing else: text is written as it is
 * (no numeric character references, which that lexer does not decode).
 *
 * Ids: metric, region and cnode ids and location ids (the data columns)
 * are written as the records hold them; system tree nodes and location
 * groups are numbered 0, 1, ... in the order they are written, which is
 * document order for records read from a file (the format ignores these
 * Ids).  Coordinates follow their entity: lgId and stnId name its written
 * number; the CUBE 3 names become CUBE 4 ones (thrdId a location id as
 * locId; procId a process Id as lgId; machId and nodeId the Id of a root
 * or of a deeper system tree node as stnId, each looked up by the Id the
 * records keep, else taken as an index, as the reader checks them).
 *
 * What the records leave out gets what the format's readers assume: a
 * NULL text is "", a region's mangled name its name, its paradigm and
 * role "unknown", a metric's type its kind's name and its dtype the
 * type's name; optional attributes and elements (viztype, convertible,
 * cacheable, val, descr of a system tree node, titles, names of carts and
 * dimensions) are written only when present.  A type text is written as
 * read when it names the record's kind (the alias DERIVED stays), else
 * the kind's name; viztype likewise ("GHOST" for a ghost metric,
 * "NORMAL" for any other text).  CubePL programs keep their attributes,
 * double-quoted.
 */
#ifndef LIBCUBE_CUBEX_ANCHOR_WRITE_H
#define LIBCUBE_CUBEX_ANCHOR_WRITE_H

#include "cubex/anchor_private.h"
#include "cubex/tar_private.h"

/* Append anchor.xml for the records a to out: plain text, or
 * gzip-compressed when `gzip` is set (the reference library reads
 * either).  0, or -1 with status set: CUBE_EINVAL "anchor.xml: what is
 * inconsistent" for records no file can say (ids of metrics, regions or
 * cnodes given twice, a parent index not before its child, a region,
 * group or location index out of range, a location group without
 * location, location ids other than 0 ... L-1, a cart without
 * dimensions, a coordinate naming no entity), CUBE_ENOMEM.  On failure
 * out holds what was appended so far.  Not read: version, gzip,
 * has_severity, the counts of unknown elements, location_by_id. */
int cubex_anchor_write(const cubex_anchor *a, int gzip, strbuf *out, cube_status *status);

/* Write the records as member "anchor.xml" of archive w (the reference
 * writers put it last). */
int cubex_anchor_write_member(cubex_tar_writer *w, const cubex_anchor *a, int gzip,
                              int64_t mtime, cube_status *status);

/* The name of a metric's member with extension `ext` ("index", "data"):
 * "<id>.<ext>", "ghost_<id>.<ext>" for a ghost metric.  len >= 48 always
 * suffices. */
void cubex_metric_member_name(const cubex_metric_def *m, const char *ext, char *buf, size_t len);

#endif
