/*
 * fuzz_cubex_anchor.c - the definitions parser of CUBE 4 archives
 * (anchor.xml, plain or gzip-compressed as the input's first bytes say):
 * every accepted document must satisfy the invariants of
 * fuzz_cubex_anchor.h, every refusal must carry a code and a one-line
 * message.  It is a harness of library internals (the private cubex
 * layer, which has no public interface of its own), built with -Ilibcube.
 */
#include "fuzz_common.h"
#include "fuzz_cubex_anchor.h"

static int fuzz_one_cubex_anchor(const uint8_t *data, size_t size)
{
    cube_status st;
    cubex_anchor *a = cubex_anchor_parse(data, size, "fuzz", &st);
    fuzz_check_anchor(a, &st);
    cubex_anchor_free(a);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_cubex_anchor(data, size);
}
#endif
