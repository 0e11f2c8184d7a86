/* Readiness for a service manager: systemd's notify protocol (Type=notify),
 * without libsystemd. */
#ifndef CZ_DAEMON_NOTIFY_H
#define CZ_DAEMON_NOTIFY_H

/* Sends state ("READY=1", "STOPPING=1", "STATUS=...", newline-separated) as
 * one datagram to $NOTIFY_SOCKET (a path, or '@' for the abstract
 * namespace). Does nothing when the variable is unset (not under systemd);
 * returns 0 when sent or not asked for, -1 when sending failed. */
int cz_notify(const char *state);

#endif
