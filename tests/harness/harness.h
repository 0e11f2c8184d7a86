/* Small test framework: CHECK macros, a seeded RNG and a vector-file reader.
 *
 * Randomized tests take their seed from $CZ_TEST_SEED (default: time-based)
 * and print it on the first failure, so a failing run can be replayed. */
#ifndef CZ_TEST_HARNESS_H
#define CZ_TEST_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int cz_test_failures;

void cz_test_fail(const char *file, int line, const char *expr);

/* An expression, so it can sit in a comma list. */
#define CHECK(cond) ((cond) ? (void)0 : cz_test_fail(__FILE__, __LINE__, #cond))

/* Seeds the RNG from $CZ_TEST_SEED or the clock and prints "<name>: seed N".
 * A malformed CZ_TEST_SEED, CZ_TEST_ITERS or CZ_THREADS ends the process
 * with status 2 and a message naming the variable. */
void cz_test_init(const char *name);
/* Prints the summary line and returns the process exit status. */
int cz_test_finish(const char *name);
/* Iteration count: $CZ_TEST_ITERS when set, else dflt. */
unsigned cz_test_iters(unsigned dflt);

/* Whole-file helpers: read returns a malloc'd buffer (NULL when the file
 * cannot be read) and its length; write records a failure when it cannot. */
uint8_t *cz_test_read_file(const char *path, size_t *len);
/* Marks a key file the test made as a development key (FILE.dev, as cuzk
 * setup does; filecoin/common/params_table.h), so the SRS manager serves it under
 * an official name; records a test failure when it cannot. */
void cz_test_mark_development(const char *path);
/* Writes the Groth16 parameters (development, marked) of the circuit
 * x * x = y (x public) under the PoRep file names of sector_size in dir,
 * for tests that need a loadable SRS but no real circuit; returns the
 * .params file's size (0 after recording a failure). */
uint64_t cz_test_write_tiny_params(const char *dir, uint64_t sector_size);
/* That key's circuit (a pre-compiled circuit file) at path. */
void cz_test_write_tiny_circuit(const char *path);
void cz_test_write_file(const char *path, const uint8_t *buf, size_t len);
/* 1 when the mapping holding p is shared, 0 when private, -1 when
 * /proc/self/smaps cannot tell. Locking a private file mapping makes the
 * kernel copy every page (a 32 GiB PoRep's 5.9 GB circuit: no answer
 * beside its synthesis on an H100 host), a shared one pins the page cache. */
int cz_test_mapping_shared(const void *p);
/* The AnonHugePages (kB: transparent huge pages) of the mapping holding p,
 * -1 when /proc/self/smaps cannot tell. */
long cz_test_mapping_huge_kb(const void *p);

/* Decodes exactly len bytes from 2 * len hex digits (either case); returns 0
 * on a wrong length or a bad digit. */
int cz_test_from_hex(uint8_t *out, const char *hex, size_t len);

uint64_t cz_test_rand64(void);
void cz_test_rand_bytes(uint8_t *out, size_t len);

/* Vector files: text, one case per line, fields separated by spaces, '#'
 * comments. Each field is lowercase hex (even length, may be empty as "-")
 * or a decimal integer. */
typedef struct {
    FILE *file;
    char path[512];
    char *line; /* getline buffer */
    size_t line_cap;
    char *fields[1024];
    int nfields;
    unsigned long lineno;
} cz_vector_file;

/* Opens CZ_VECTOR_DIR/name; returns 0 when the file does not exist (the test
 * then fails: vectors are committed). */
int cz_vector_open(cz_vector_file *vf, const char *name);
/* Reads the next case into vf->fields; returns 0 at end of file. */
int cz_vector_next(cz_vector_file *vf);
void cz_vector_close(cz_vector_file *vf);
/* Decodes hex field i into out (exactly len bytes); returns 0 on a mismatch
 * of length or a bad digit, and records a test failure naming the line. */
int cz_vector_hex(cz_vector_file *vf, int i, uint8_t *out, size_t len);
/* Length in bytes of hex field i ("-" is 0). */
size_t cz_vector_hex_len(cz_vector_file *vf, int i);

#endif
