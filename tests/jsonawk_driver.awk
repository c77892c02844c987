# Test driver for templates/fragments/json.awk.
# Usage: LC_ALL=C awk -v paths="a.b,c" -f templates/fragments/json.awk -f tests/jsonawk_driver.awk
#
# Reads all of stdin (lines joined with newlines), or the file named by
# -v file=PATH through j_readfile.  Default mode prints, for each path in the
# comma separated list (dots separate keys inside one path), a line
#   <path> TAB <type or -> TAB <value>
# then "ok TAB <j_parse result>".  mode=esc prints j_esc(input); mode=pct
# prints j_pct(input); mode=cap
# prints j_cap(input, n); both without a trailing newline.
BEGIN {
	if (file != "") {
		doc = j_readfile(file)
	} else {
		nl = 0
		while ((getline line) > 0)
			LINES[++nl] = line
		doc = j__join(LINES, nl, "\n")
	}
	if (mode == "esc") {
		printf "%s", j_esc(doc)
		exit 0
	}
	if (mode == "pct") {
		printf "%s", j_pct(doc)
		exit 0
	}
	if (mode == "cap") {
		printf "%s", j_cap(doc, n)
		exit 0
	}
	ok = j_parse(doc)
	np = (paths == "") ? 0 : split(paths, PS, ",")
	for (i = 1; i <= np; i++) {
		nk = split(PS[i], K, ".")
		p = (nk > 0) ? K[1] : ""
		for (j = 2; j <= nk; j++)
			p = p SUBSEP K[j]
		t = (p in J_type) ? J_type[p] : "-"
		v = ""
		if (t == "s")
			v = j_esc(j_str(p))
		else if (t == "n")
			v = J_raw[p]
		printf "%s\t%s\t%s\n", PS[i], t, v
	}
	printf "ok\t%d\n", ok
	exit 0
}
