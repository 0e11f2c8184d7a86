/* Files are written as PATH<sep>PID and renamed into place, so a reader
 * never sees a partial file; a writer killed on the way (kill -9 while a
 * 32 GiB circuit is built) leaves its temporary behind. Writers call this
 * before they start, so leftovers do not pile up beside the parameters. */
#ifndef CZ_UTIL_TMPFILES_H
#define CZ_UTIL_TMPFILES_H

/* Removes PATH<sep><pid> files (sep such as ".tmp." or ".tmp-") of
 * writers that are gone: the pid is not a live process of this pid
 * namespace and the file has not changed for CZ_STALE_TMP_SECONDS (a
 * writer in another namespace that shares the directory still touches its
 * file). Returns the number removed; errors are not fatal (nothing is
 * removed then). */
#define CZ_STALE_TMP_SECONDS 600
unsigned cz_remove_stale_temporaries(const char *path, const char *sep);

#endif
