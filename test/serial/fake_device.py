"""A fake serial console for ptyhub's tests, on the far end of a socat pty pair.

It behaves like a small Linux board's console: silent until Enter, then a banner and a login
(user root, password "secret", no echo while the password is typed), a shell-like prompt whose
commands are: help (60 lines through a --More-- pager: space = next page, q = quit),
slow N (N lines, 30 ms apart), nl (how the last line ended, as hex), exit (back to login).
It echoes what is typed, like a tty in cooked mode, and with --baud it paces its output at that
rate (10 bits per character), as a real line at a low rate would.
Prints "ready" on stdout once the port is open.
"""
import os
import select
import sys
import time
import tty

path = sys.argv[1]
baud = int(sys.argv[sys.argv.index("--baud") + 1]) if "--baud" in sys.argv else 0
fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
print("ready", flush=True)

PAGE = 20
HELP = [f"help line {i:02d}: command number {i}" for i in range(1, 61)]


def out(text):
    data = text.encode()
    if baud:
        for i in range(len(data)):
            os.write(fd, data[i : i + 1])
            time.sleep(10 / baud)
    else:
        os.write(fd, data)


pending = []


def read_byte():
    if pending:
        return pending.pop(0)
    b = os.read(fd, 1)
    if not b:
        sys.exit(0)
    return b


last_nl = b""


def read_line(echo=True):
    """A line up to CR or LF (CR LF counts as one); echoes like a cooked tty."""
    global last_nl
    buf = b""
    while True:
        b = read_byte()
        if b in (b"\r", b"\n"):
            last_nl = b
            if b == b"\r":
                # A CR LF newline: take the LF too, when it came with the CR.
                r, _, _ = select.select([fd], [], [], 0.01)
                if r:
                    nxt = os.read(fd, 1)
                    if nxt == b"\n":
                        last_nl = b"\r\n"
                    else:
                        pending.append(nxt)
            if echo:
                out("\r\n")
            return buf.decode(errors="replace")
        if b in (b"\x7f", b"\x08"):
            if buf:
                buf = buf[:-1]
                if echo:
                    out("\b \b")
            continue
        buf += b
        if echo:
            out(b.decode(errors="replace"))


def pager(lines):
    i = 0
    while i < len(lines):
        for line in lines[i : i + PAGE]:
            out(line + "\r\n")
        i += PAGE
        if i >= len(lines):
            return
        out("--More--")
        key = read_byte()
        out("\r        \r")
        if key in (b"q", b"Q"):
            return


def shell():
    while True:
        out("root@board:~# ")
        line = read_line().strip()
        if line == "":
            continue
        word, *args = line.split()
        if word == "help":
            pager(HELP)
        elif word == "slow":
            for i in range(int(args[0]) if args else 5):
                out(f"slow line {i}\r\n")
                time.sleep(0.03)
        elif word == "nl":
            out(f"nl={last_nl.hex()}\r\n")
        elif word == "exit":
            out("logout\r\n")
            return
        else:
            out(f"-sh: {word}: not found\r\n")


# Silent until someone presses Enter, like a console that already finished booting.
read_line(echo=False)
while True:
    out("\r\nDebian GNU/Linux 12 board ttyS0\r\n\r\nboard login: ")
    user = read_line()
    out("Password: ")
    password = read_line(echo=False)
    if user == "root" and password == "secret":
        out("Last login: today on ttyS0\r\n")
        shell()
    else:
        time.sleep(0.2)
        out("\r\nLogin incorrect\r\n")
