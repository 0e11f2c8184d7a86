/* systemd's notify protocol (see notify.h). */
#include "daemon/notify.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int cz_notify(const char *state) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !path[0]) return 0;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || n >= sizeof sa.sun_path) return -1;
    memcpy(sa.sun_path, path, n);
    if (path[0] == '@') sa.sun_path[0] = 0; /* abstract socket */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
    ssize_t sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
    close(fd);
    return sent == (ssize_t)strlen(state) ? 0 : -1;
}
