#!/usr/bin/env python3
"""annotate.py -- insert OpenMP pragmas from manifest.json into a corpus program.

Usage: annotate.py [--bare] [-o OUT] FILE LINE...

For each LINE (1-based line of a loop keyword listed in manifest.json for
FILE), insert "#pragma omp parallel for <clauses>" on a new line just before
that loop, indented like the loop. With --bare the clauses are omitted (used
by verify.sh's evidence mode on sequential loops). The result goes to OUT
(default: stdout). Line numbers refer to the original FILE.
"""
import json
import os
import sys


def main(argv):
    bare = False
    out = None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == '--bare':
            bare = True
        elif a == '-o':
            i += 1
            out = argv[i]
        else:
            args.append(a)
        i += 1
    if len(args) < 2:
        sys.exit(__doc__)
    path, lines = args[0], sorted({int(x) for x in args[1:]}, reverse=True)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'manifest.json')) as f:
        manifest = json.load(f)
    name = os.path.basename(path)
    entries = {e['line']: e for e in manifest if e['file'] == name}
    with open(path) as f:
        text = f.read().split('\n')
    for ln in lines:
        if ln not in entries:
            sys.exit('annotate.py: %s:%d is not a loop in manifest.json' % (name, ln))
        src = text[ln - 1]
        indent = src[:len(src) - len(src.lstrip())]
        clauses = '' if bare else entries[ln]['clauses']
        pragma = indent + '#pragma omp parallel for' + (' ' + clauses if clauses else '')
        text.insert(ln - 1, pragma)
    data = '\n'.join(text)
    if out:
        with open(out, 'w') as f:
            f.write(data)
    else:
        sys.stdout.write(data)


if __name__ == '__main__':
    main(sys.argv[1:])
