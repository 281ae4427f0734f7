"""Reusable BMv2 harness for the Lighthouse P4 ToR.

Brings up `simple_switch` with lighthouse.json in a private network
namespace, with one veth pair per BMv2 port (docs/p4.md "Ports": hosts
1+k, uplinks 32+p, CPU 64). The test side of each pair is a raw
AF_PACKET socket, so a case is: load entries (simple_switch_CLI text),
send a frame into a port, expect a frame (or nothing) out of another.

No third-party modules: frames are built by hand (helpers below).
Needs root (netns, veth). Used by p4/tests/bmv2_cases.py and meant to be
the BMv2 back end of a shared conformance suite.
"""
import ctypes
import os
import re
import select
import socket
import struct
import subprocess
import tempfile
import time


def run(cmd, ns=None, check=True, **kw):
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return subprocess.run(cmd, check=check, capture_output=True, text=True, **kw)


_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


class Bmv2Tor:
    """A simple_switch ToR in its own namespace. `ports`: BMv2 port numbers."""

    def __init__(self, json_path, ports=(1, 2, 32, 33, 64), thrift=9090, log_dir=None):
        self.json = os.path.abspath(json_path)
        self.ports = list(ports)
        self.ns = "lhp4-%d" % os.getpid()
        self.thrift = thrift
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="wt-p4-bmv2-")
        self.proc = None
        self.socks = {}

    def __enter__(self):
        run(["ip", "netns", "add", self.ns])
        try:
            run(["ip", "link", "set", "lo", "up"], ns=self.ns)
            ifs = []
            for p in self.ports:
                sw, tst = "sw%d" % p, "t%d" % p
                run(["ip", "link", "add", sw, "type", "veth", "peer", "name", tst], ns=self.ns)
                for i in (sw, tst):
                    run(["ip", "link", "set", i, "mtu", "9000"], ns=self.ns)
                    run(["ip", "link", "set", i, "up"], ns=self.ns)
                    # no IPv6 chatter on the test ports
                    run(["sysctl", "-q", "-w", "net.ipv6.conf.%s.disable_ipv6=1" % i], ns=self.ns, check=False)
                ifs += ["-i", "%d@%s" % (p, sw)]
            log = open(os.path.join(self.log_dir, "simple_switch.log"), "w")
            self.proc = subprocess.Popen(
                ["ip", "netns", "exec", self.ns, "simple_switch", "--log-console",
                 "--thrift-port", str(self.thrift)] + ifs + [self.json],
                stdout=log, stderr=subprocess.STDOUT)
            self._wait_thrift()
            for p in self.ports:
                self.socks[p] = self._sock("t%d" % p)
        except Exception:
            self.__exit__(None, None, None)
            raise
        return self

    def _sock(self, ifname):
        # Open the socket inside the namespace: setns for this thread only.
        fd = os.open("/run/netns/%s" % self.ns, os.O_RDONLY)
        own = os.open("/proc/self/ns/net", os.O_RDONLY)
        try:
            _setns(fd)
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
            s.bind((ifname, 0))
            s.setblocking(False)
        finally:
            _setns(own)
            os.close(fd)
            os.close(own)
        return s

    def _wait_thrift(self):
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("simple_switch exited; see %s" % self.log_dir)
            r = self.cli("show_ports", check=False)
            if r.returncode == 0 and "Error" not in r.stdout:
                return
            time.sleep(0.3)
        raise RuntimeError("simple_switch thrift did not come up")

    def cli(self, text, check=True):
        r = run(["simple_switch_CLI", "--thrift-port", str(self.thrift)], ns=self.ns,
                check=False, input=text)
        if check and (r.returncode != 0 or "Error" in r.stdout or "Invalid" in r.stdout):
            raise RuntimeError("simple_switch_CLI failed:\n%s\n%s" % (r.stdout[-3000:], r.stderr[-2000:]))
        return r

    def drain(self):
        for s in self.socks.values():
            while True:
                try:
                    s.recv(65535)
                except BlockingIOError:
                    break

    def send(self, port, frame):
        self.socks[port].send(frame)

    def recv(self, port, timeout=1.0, keep=None):
        """Next frame out of `port` (optionally the first for which keep(f) holds)."""
        s = self.socks[port]
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([s], [], [], left)
            if not r:
                return None
            f, addr = s.recvfrom(65535)
            if addr[2] == socket.PACKET_OUTGOING:
                continue  # our own transmission on this veth
            if keep is None or keep(f):
                return f

    def counter(self, name, index):
        r = self.cli("counter_read LhIngress.%s %d\n" % (name, index))
        m = re.search(r"(\d+) packets", r.stdout) or re.search(r"packets=(\d+)", r.stdout)
        if not m:
            raise RuntimeError(r.stdout)
        return int(m.group(1))

    def register(self, name, index):
        r = self.cli("register_read LhIngress.%s %d\n" % (name, index))
        for line in r.stdout.splitlines():
            if "=" in line and "LhIngress.%s" % name in line:
                return int(line.rsplit("=", 1)[1].strip())
        raise RuntimeError(r.stdout)

    def __exit__(self, *exc):
        for s in self.socks.values():
            s.close()
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        run(["ip", "netns", "del", self.ns], check=False)


# ------------------------------------------------------------- frames

def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip(s):
    return socket.inet_aton(s)


def ipv4_udp(src_mac, dst_mac, src_ip, dst_ip, sport=1000, dport=2000, payload=b"x" * 18,
             proto=17):
    l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    tot = 20 + len(l4)
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 1, 0, 64, proto, 0, ip(src_ip), ip(dst_ip))
    return mac(dst_mac) + mac(src_mac) + b"\x08\x00" + iph + l4


def arp_request(src_mac, src_ip, target_ip):
    a = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, mac(src_mac), ip(src_ip),
                    b"\0" * 6, ip(target_ip))
    return b"\xff" * 6 + mac(src_mac) + b"\x08\x06" + a


def rotation(slice_, slot):
    return b"\xff" * 6 + b"\x02\0\0\0\0\x64" + b"\x88\xb6" + struct.pack("!BBHIH", 2, 0, slice_, slot, 0) + b"\0" * 40


def push_srh(frame, steps):
    """Insert a source-route header with (port, depart) steps after the MACs."""
    body = struct.pack("!BB", 1, len(steps)) + b"".join(struct.pack("!BH", p, d) for p, d in steps)
    return frame[:12] + b"\x88\xb5" + body + frame[12:14] + frame[14:]


def parse_tag(f):
    """(kind, flags, slice, slot, next_type, rest) of a 0x88B6 frame, else None."""
    if len(f) < 24 or f[12:14] != b"\x88\xb6":
        return None
    kind, flags, sl, slot, nxt = struct.unpack("!BBHIH", f[14:24])
    return kind, flags, sl, slot, nxt, f[24:]
