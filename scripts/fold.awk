# Long lines whole, folded at blanks to fit w columns (awk -v w=COLUMNS):
# each continuation line is indented 6 more than its line's own indentation,
# so that folded lines read as one.  A word longer than the room left is
# not cut: that line stays longer than w.
BEGIN { w = w > 40 ? w - 1 : 39 }
{
    ind = $0
    sub(/[^ ].*/, "", ind)
    pad = ind "      "
    while (length($0) > w) {
        cut = 0
        for (i = w + 1; i > length(pad) + 10; i--)
            if (substr($0, i, 1) == " ") { cut = i; break }
        if (!cut)
            break
        print substr($0, 1, cut - 1)
        rest = substr($0, cut + 1)
        sub(/^ +/, "", rest)
        $0 = pad rest
    }
    print
}
