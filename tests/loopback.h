#pragma once

// An address on this machine where nothing listens, for tests of downloads that must fail:
// connecting to it is refused at once, with or without a network, and nothing leaves the host.

#include <QString>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rg::test {

// A TCP port of 127.0.0.1 that was free a moment ago: bound to port 0 (the kernel picks one
// no one uses), read back, closed again. 0 if no socket could be made.
inline int closedLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = ntohs(address.sin_port);
    ::close(fd);
    return port;
}

// "http://127.0.0.1:PORT" on a port nothing listens on; empty if none could be found.
inline QString refusingLoopbackOrigin()
{
    const int port = closedLoopbackPort();
    return port ? QStringLiteral("http://127.0.0.1:%1").arg(port) : QString();
}

} // namespace rg::test
