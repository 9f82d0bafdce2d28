#!/usr/bin/env python3
"""The functions declared in libcube's public headers, one name a line.

    public_api.py HEADER...

Reads the headers as C text: comments, string and character literals and
preprocessor lines are dropped, then every top-level declaration (outside
any braces but those of extern "C") that is not a typedef and has a
parameter list is a function declaration; its name is the identifier
before the first "(".  The export test compares this list with what
libcube.so exports, so it is derived from the headers themselves, not from
the export macro: a declaration without the macro shows up as "declared,
not exported".

    public_api.py --mark HEADER...

Prints, for each function declaration that does not start with CUBE_API,
"HEADER:LINE: NAME" and exits 1 if there is any.
"""
import re
import sys

IDENT = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by
    spaces (newlines kept, so offsets and line numbers stay valid)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (j - i - 1) + c)
            i = j + 1
            continue
        else:
            out.append(c)
            i += 1
            continue
        out.append(re.sub(r'[^\n]', ' ', text[i:j]))
        i = j
    # then the preprocessor lines, with their backslash continuations
    lines = ''.join(out).split('\n')
    cont = False
    for k, line in enumerate(lines):
        if cont or line.lstrip().startswith('#'):
            cont = line.endswith('\\')
            lines[k] = ' ' * len(line)
    return '\n'.join(lines)


def declarations(text):
    """(offset of the first character, statement text) of every top-level
    statement ended by ";"."""
    t = blank(text)
    # extern "C" { ... }: its braces do not nest declarations
    t = re.sub(r'extern\s*"\s*"\s*\{', lambda m: ' ' * len(m.group(0)), t)
    depth = 0
    start = 0
    for i, c in enumerate(t):
        if c == '{':
            depth += 1
        elif c == '}':
            if depth > 0:
                depth -= 1
            else:  # the closing brace of extern "C"
                start = i + 1
        elif c == ';' and depth == 0:
            stmt = t[start:i]
            lead = len(stmt) - len(stmt.lstrip())
            yield start + lead, stmt.strip()
            start = i + 1


def functions(text):
    """(offset, name, statement) of every function declaration."""
    for off, stmt in declarations(text):
        if not stmt or '{' in stmt or '(' not in stmt:
            continue
        words = IDENT.findall(stmt)
        if words and words[0] == 'typedef':
            continue
        head = stmt[:stmt.index('(')].rstrip()
        m = re.search(r'([A-Za-z_][A-Za-z0-9_]*)$', head)
        if m:  # not "int (*f)(void)", a pointer variable
            yield off, m.group(1), stmt


def main(argv):
    mark = argv[1:2] == ['--mark']
    paths = argv[2:] if mark else argv[1:]
    bad = 0
    for path in paths:
        text = open(path, encoding='utf-8').read()
        for off, name, stmt in functions(text):
            if mark:
                if not stmt.startswith('CUBE_API '):
                    print('%s:%d: %s' % (path, text.count('\n', 0, off) + 1, name))
                    bad = 1
            else:
                print(name)
    return bad


if __name__ == '__main__':
    sys.exit(main(sys.argv))
