"""Run the shell examples of the README and of the man pages' EXAMPLES
sections, as a user would type them, and report each one TAP-like
("ok - ...", "not ok - ...", "ok - ... # SKIP reason").

    python3 doc_examples.py readme README.md
    python3 doc_examples.py man PAGE.1...

The examples are read from the documents at every run, so the documents
and the test cannot drift apart.  Commands run one by one with `sh -c` in
the current directory (tests/cli/test_doc_examples.sh prepares it: the
shipped data under the names the documents use, the tools on PATH).

README (its section "Testing the examples" is the user's side of this):
in an indented code block a line "$ COMMAND" starts a command, the lines
after it that begin with "> " continue it (as the shell's second prompt
shows them), and the other lines up to the next "$ " are its output.
A command fails when it exits with a status other than 0, or when output
is shown and the command's output (standard output and standard error,
as on a terminal) does not match it: runs of blanks match runs of
blanks, "..." matches any text within a line, and a line of just "..."
any number of lines.  A command whose line ends in a comment
"# not tested: REASON" is not run and counts as skipped.

Man pages: each .EX block of EXAMPLES is one example.  A block of make
rules (a "target: ..." line followed by a tab-indented recipe) is run as
a makefile, for every target it names; a block whose first word is not a
command here (output shown in the text) is not run, which a comment line
says.  Examples that need what
a test machine does not have (a remote host, more than 2 MPI ranks, the
CUBE 3 tools, a python module or a program that is not installed) are
skipped, naming what is missing.
"""
import os
import re
import shutil
import subprocess
import sys

TIMEOUT = 300


def tap(ok, name, detail=None, skip=None):
    name = name.replace("\n", " ")
    if skip:
        print("ok - %s # SKIP %s" % (name, skip))
    elif ok:
        print("ok - %s" % name)
    else:
        print("not ok - %s" % name)
        for line in (detail or "").splitlines()[:12]:
            print("#   " + line[:200])
    sys.stdout.flush()


def run(cmd):
    """(status, output) of `sh -c cmd`, stderr merged into stdout."""
    try:
        p = subprocess.run(["sh", "-c", cmd], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return 124, "timed out after %d s" % TIMEOUT
    return p.returncode, p.stdout.decode("utf-8", "replace")


# --- output matching ------------------------------------------------------

def norm(line):
    return " ".join(line.split())


def line_pattern(expected):
    parts = norm(expected).split("...")
    rx = ""
    for k, part in enumerate(parts):
        if k > 0:
            if parts[k - 1].endswith(" ") and part.startswith(" "):
                # "a ... b": "a b", or "a", any text, "b", a blank each side
                rx += r" (?:.* )?"
                part = part[1:]
            else:
                rx += ".*"
        if k + 1 < len(parts) and part.endswith(" ") and parts[k + 1].startswith(" "):
            part = part[:-1]
        rx += re.escape(part)
    return re.compile("^" + rx + "$")


def output_matches(expected_lines, actual_lines):
    exp = [e for e in expected_lines]
    act = [norm(a) for a in actual_lines]
    pats = [None if norm(e) == "..." else line_pattern(e) for e in exp]
    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(pats):
            r = j == len(act)
        elif pats[i] is None:
            r = any(match(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and bool(pats[i].match(act[j])) and match(i + 1, j + 1)
        memo[i, j] = r
        return r

    return match(0, 0)


def first_difference(expected_lines, actual_lines):
    for k, e in enumerate(expected_lines):
        if norm(e) == "...":
            return "expected output:\n" + "\n".join(expected_lines) + \
                "\nactual output:\n" + "\n".join(actual_lines)
        a = actual_lines[k] if k < len(actual_lines) else "(no more output)"
        if not line_pattern(e).match(norm(a)):
            return "line %d: expected: %s\nline %d: actual:   %s" % (k + 1, e, k + 1, a)
    return "more output than shown: " + actual_lines[len(expected_lines)]


def check_command(name, cmd, expected, skip=None):
    if skip:
        tap(True, name, skip=skip)
        return
    rc, out = run(cmd)
    lines = out.splitlines()
    if rc != 0:
        tap(False, name + " (exit %d)" % rc, out)
    elif expected and not lines:
        tap(False, name + " (printed nothing; the document shows output)")
    elif expected and not output_matches(expected, lines):
        tap(False, name + " (output differs from the document)",
            first_difference(expected, lines))
    else:
        tap(True, name)


# --- README -----------------------------------------------------------------

NOT_TESTED = re.compile(r"#\s*not tested:\s*(.*?)\s*$")


def readme_blocks(text):
    """The indented code blocks: (first line number, [lines without the
    indentation])."""
    lines = text.split("\n")
    blocks, cur, start, prev_blank = [], None, 0, True
    for n, line in enumerate(lines, 1):
        if cur is not None:
            if line.startswith("    ") or line.strip() == "":
                cur.append(line[4:])
                continue
            blocks.append((start, cur))
            cur = None
        if line.startswith("    ") and prev_blank:
            cur, start = [line[4:]], n
        prev_blank = line.strip() == ""
    if cur is not None:
        blocks.append((start, cur))
    return blocks


def readme_commands(path):
    """(line number, command, expected output lines, skip reason)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = []
    for start, block in readme_blocks(text):
        k = 0
        while k < len(block):
            line = block[k]
            if not (line.startswith("$ ") or line == "$"):
                k += 1
                continue
            n = start + k
            cmd = [line[2:]]
            k += 1
            while k < len(block) and (block[k].startswith("> ") or block[k] == ">"):
                cmd.append(block[k][2:])
                k += 1
            expected = []
            while k < len(block) and not (block[k].startswith("$ ") or block[k] == "$"):
                expected.append(block[k])
                k += 1
            while expected and expected[-1].strip() == "":
                expected.pop()
            m = NOT_TESTED.search(cmd[0])
            out.append((n, "\n".join(cmd), expected, m.group(1) if m else None))
    return out


def do_readme(path):
    cmds = readme_commands(path)
    if not cmds:
        tap(False, "%s has shell examples" % path)
    for n, cmd, expected, skip in cmds:
        name = "%s:%d: %s" % (os.path.basename(path), n, cmd.split("\n")[0].split(" #")[0].strip())
        check_command(name, cmd, expected, skip)


# --- man pages --------------------------------------------------------------

ROFF = [(r"\-", "-"), (r"\(aq", "'"), (r"\(dq", '"'), (r"\(rs", "\\"), (r"\e", "\\"),
        (r"\(ha", "^"), (r"\(ti", "~"), (r"\(*m", "\u00b5"), (r"\&", ""),
        (r"\fB", ""), (r"\fI", ""), (r"\fR", ""), (r"\fP", "")]


def unroff(line):
    out, i = [], 0
    while i < len(line):
        for esc, rep in ROFF:
            if line.startswith(esc, i):
                out.append(rep)
                i += len(esc)
                break
        else:
            out.append(line[i])
            i += 1
    return "".join(out)


def man_examples(path):
    """(line number, [lines]) of each .EX block in EXAMPLES."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, inside, cur = [], False, None
    for n, line in enumerate(lines, 1):
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1:] in (["EXAMPLES"], ["EXAMPLE"])
            continue
        if not inside:
            continue
        if line.startswith(".EX"):
            cur, start = [], n + 1
        elif line.startswith(".EE"):
            if cur is not None:
                blocks.append((start, cur))
            cur = None
        elif cur is not None and not line.startswith("."):
            cur.append(unroff(line))
    return blocks


MAKE_TARGET = re.compile(r"^([^\s:=#][^:=]*?)\s*:(?!=)")


def is_makefile(block):
    for k, line in enumerate(block[:-1]):
        if MAKE_TARGET.match(line) and block[k + 1].startswith("\t"):
            return True
    return any(re.match(r"^\w+\s*:=", line) for line in block)


def missing(script):
    """What the example needs that this machine has not, or None."""
    if re.search(r"\bssh\b", script):
        return "needs a remote host (ssh)"
    for n in re.findall(r"\bmpiexec\s+-n\s+(\d+)", script):
        if int(n) > 2:
            return "needs %s MPI ranks" % n
    if re.search(r"\bcube3_\w+", script):
        return "needs the CUBE 3.4.3 tools"
    for mod in re.findall(r"\bimport\s+(\w+)", script):
        if subprocess.run([sys.executable, "-c", "import " + mod],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            return "needs the python module %s" % mod
    for prog in ("jq", "mpiexec", "column", "make", "less"):
        if re.search(r"(^|[|;&(]\s*|\s)%s\s" % prog, script) and not shutil.which(prog):
            return "needs %s" % prog
    return None


def first_word(block):
    for line in block:
        words = line.split()
        if words:
            return words[0]
    return ""


def is_command(word):
    # the tools themselves always (a tool missing from the build must fail)
    if word.startswith("$") or "=" in word or word.startswith("cube_"):
        return True
    if word in ("for", "if", "case", "while", "until", "{", "("):
        return True
    return shutil.which(word) is not None


def do_man(pages):
    for page in pages:
        base = os.path.basename(page)
        for n, block in man_examples(page):
            while block and block[-1].strip() == "":
                block.pop()
            first = block[0] if block else ""
            name = "%s:%d: %s" % (base, n, first.split(" #")[0].strip())
            if is_makefile(block):
                # every target the rules name (not pattern rules, not .PHONY)
                targets = []
                for line in block:
                    m = MAKE_TARGET.match(line)
                    if m:
                        targets += [t for t in m.group(1).split()
                                    if "%" not in t and not t.startswith(".")]
                with open("example.mk", "w", encoding="utf-8") as f:
                    f.write("\n".join(block) + "\n")
                check_command(name, "make -s -f example.mk " + " ".join(targets), [],
                              missing("\n".join(block)))
                continue
            if first.startswith("$ "):
                # a transcript: "$ COMMAND" and its output, as in README
                cmd = first[2:]
                check_command(name, cmd, block[1:], missing(cmd))
                continue
            if not is_command(first_word(block)):
                # output shown in the text; said, so that an example whose
                # program is missing here cannot vanish unnoticed
                print("# %s: not run: '%s' is not a command here" % (name, first_word(block)))
                continue
            script = "\n".join(block)
            check_command(name, script, [], missing(script))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "readme":
        do_readme(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "man":
        do_man(sys.argv[2:])
    else:
        sys.exit("usage: doc_examples.py readme README.md | man PAGE...")


if __name__ == "__main__":
    main()
