/*
 * json_reader.h - a small JSON reader for the tests that compare decoded
 * values with the expected-values files of testdata/ (plain or gzip).
 * Numbers keep their literal text, so that 64-bit integers are read
 * exactly (strtoull) and doubles bit for bit (strtod).
 */
#ifndef JSON_READER_H
#define JSON_READER_H

#include <stddef.h>
#include <stdint.h>

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json json;
struct json {
    json_type type;
    char *text;   /* NUMBER: the literal; STRING: the decoded text */
    size_t n;     /* ARRAY, OBJECT: items */
    json **item;
    char **key;   /* OBJECT: the items' keys */
};

/* The document in a file (gzip-compressed or not), NULL when it cannot be
 * read or is no JSON (a message on stderr). */
json *json_load(const char *path);
void json_free(json *j);
/* DIR/NAME.expected.json, else DIR/NAME.expected.json.gz. */
json *json_load_expected(const char *dir, const char *name);

/* The member `key` of an object, the i-th item of an array; NULL when
 * there is none (or j is NULL or of another type). */
const json *json_get(const json *j, const char *key);
const json *json_at(const json *j, size_t i);
size_t json_len(const json *j);
/* A string's text, NULL for anything else. */
const char *json_str(const json *j);
/* A number as double (strtod of the literal), as unsigned or signed
 * 64-bit integer (strtoull / strtoll of the literal). */
double json_num(const json *j);
uint64_t json_u64(const json *j);
int64_t json_i64(const json *j);

#endif
