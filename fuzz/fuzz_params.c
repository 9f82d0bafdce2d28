/*
 * fuzz_params.c - the cube_bench parameter-file parser (params_parse on
 * the bytes, not NUL-terminated: the input is copied to a buffer of
 * exactly its size so that ASan sees any read past the end).
 */
#include "fuzz_common.h"
#include "params.h"

static int fuzz_one_params(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    if (size)
        memcpy(text, data, size);
    bench_params p;
    char err[512];
    if (params_parse(text, size, "fuzz.par", &p, err, sizeof err) == 0) {
        for (size_t i = 0; i < p.n_suites; i++) {
            asec_params a;
            refine_params r;
            params_suite_asec(&p.suites[i], &a);
            params_suite_refine(&p.suites[i], 1L << 20, &r);
        }
        params_free(&p);
    }
    free(text);
    return 0;
}

#ifndef FUZZ_REGRESSION
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_one_params(data, size);
}
#endif
