# json.awk -- portable POSIX awk JSON reader for agent hook payloads.
#
# Runs under mawk 1.3.4, busybox awk, gawk and the one-true-awk.  Always run
# awk with LC_ALL=C so that strings are byte strings (length, substr, printf
# %c all work on bytes).  This file defines functions only; every global it
# touches starts with J_ and every function name starts with j_.  It is pasted
# verbatim into single-quoted shell strings, so it never contains a single
# quote character.
#
# Public API
#   j_parse(s)       parse JSON text s; fills J_type[path] and J_raw[path];
#                    returns 1 when s is one complete, valid JSON object.
#   j_str(path)      decoded (UTF-8 bytes) value of the string at path, or "".
#   j_has(path)      1 when a value exists at path.
#   j_is(path, t)    1 when the value at path has type t.
#   j_esc(s)         escape bytes for use inside a JSON string literal.
#   j_cap(s, n)      cut s to at most n bytes, never inside a UTF-8 character.
#   j_readfile(f)    whole file as a string ("" when it cannot be opened).
#   j_dump(path, n)  the value at path as compact JSON in plain ASCII, at most n
#                    bytes ("" when there is none, when it is longer, or when
#                    it cannot be told whole: see J_order).
#   J_order          set by the caller before j_parse: the parse keeps the
#                    document order of the values, for j_dump.
#   J_max            set by the caller: j_parse stores at most this many values
#                    (0 or unset: no bound); past it the parse stops as invalid
#                    and sets J_full, so an agent cannot buy parse time with a
#                    payload of many tiny values.
#
# Types in J_type: s string, n number, t true, f false, z null, o object,
# a array.  J_raw holds the still-escaped text between the quotes of a string
# and the literal text of a number.  Paths join keys with SUBSEP; array
# elements use their 0-based index.  The top-level value itself has no entry.
#
# Design notes (performance on multi-megabyte payloads):
#  * The text is split once on double quotes.  A segment ending in an odd run
#    of backslashes means the quote after it is escaped, so the string goes on
#    into the next segment.  Only segments outside strings are tokenised, and
#    they are short (punctuation, numbers, whitespace).
#  * Strings are stored raw and decoded only on demand (j_str).
#  * Long results are assembled with a pairwise (tree) join, because
#    repeated "s = s x" is quadratic in mawk, busybox and the one-true-awk.
#  * Truncated input: every value completed before the cut is kept; a string
#    without its closing quote, or a number or literal at the very end of the
#    text without a following delimiter, is not recorded.  Containers get their
#    J_type entry when they are opened.
#  * NaN, Infinity and -Infinity are accepted as numbers, like Python json.
#  * busybox awk and the one-true-awk cannot hold NUL bytes in strings: there a
#    decoded \u0000 is dropped and raw NUL bytes in the input cut the line.

function j__init(   i) {
  if (J__inited)
    return
  J__inited = 1
  for (i = 1; i < 256; i++)
    J__chr[i] = sprintf("%c", i)
  # empty where the awk cannot represent a NUL byte in a string
  J__nul = sprintf("%c", 0)
  if (length(J__nul) != 1)
    J__nul = ""
  J__chr[0] = J__nul
  J__del = J__chr[127]
  # piece size for gsub and regex split on long strings
  J__CH = 8192
  J__ctl = "["
  for (i = 1; i < 32; i++)
    J__ctl = J__ctl J__chr[i]
  J__ctl = J__ctl "]"
  J__cont = ""
  for (i = 128; i < 192; i++)
    J__cont = J__cont J__chr[i]
  J__lead = ""
  for (i = 192; i < 256; i++)
    J__lead = J__lead J__chr[i]
  # non-ASCII bytes: their values, a run of them, and the ASCII between runs
  for (i = 128; i < 256; i++)
    J__ord[J__chr[i]] = i
  J__hi1 = "[" J__cont J__lead "]"
  J__hirun = J__hi1 "+"
  J__lorun = "[^" J__cont J__lead "]+"
  J__fffd = J__chr[239] J__chr[191] J__chr[189]
  for (i = 0; i < 32; i++)
    J__en[i] = sprintf("\\u%04x", i)
  J__en[8] = "\\b"
  J__en[9] = "\\t"
  J__en[10] = "\\n"
  J__en[12] = "\\f"
  J__en[13] = "\\r"
  J__en[127] = "\\u007f"
  # UTF-8 lead bytes, the strict way (no overlongs, no surrogates, nothing
  # above U+10FFFF): how many continuation bytes follow, the range of the
  # first of them, and the lead byte of the smallest lead with that length
  for (i = 194; i <= 244; i++) {
    J__need[i] = (i < 224) ? 1 : ((i < 240) ? 2 : 3)
    J__lo[i] = 128
    J__hi[i] = 191
  }
  J__lo[224] = 160
  J__hi[237] = 159
  J__lo[240] = 144
  J__hi[244] = 143
  J__base[1] = 192
  J__base[2] = 224
  J__base[3] = 240
  for (i = 0; i < 32; i++)
    J__oc[i] = sprintf("\\0%03o", i)
  J__oc[127] = "\\0177"
}

# split(s, A, c) on the single character c, taken literally.  Newlines need
# care: while RS is "", busybox awk splits at every newline whatever the
# separator, so RS is set to a newline for the call; with a one character
# separator the one-true-awk also splits at every newline, so there (probed,
# not assumed) the separator is given as a bracket regex instead.
function j__split(s, A, c,   n, rs) {
  if (c == "\n" || !index(s, "\n"))
    return split(s, A, c)
  rs = RS
  if (rs == "")
    RS = "\n"
  if (split("a\nb", J__tmp, ",") != 1)
    n = split(s, A, (c == "\\") ? "[\\\\]" : ("[" c "]"))
  else
    n = split(s, A, c)
  RS = rs
  return n
}

# Concatenate A[1..n] with sep between elements; destroys A.  Pairwise
# merging costs O(total * log n) instead of the O(total * n) of a loop.
function j__join(A, n, sep,   i, m) {
  if (n <= 0)
    return ""
  while (n > 1) {
    m = 0
    for (i = 1; i < n; i += 2)
      A[++m] = A[i] sep A[i + 1]
    if (i == n)
      A[++m] = A[n]
    n = m
  }
  return A[1]
}

function j_parse(s,   P, n, k, j, pos, spos, seg, len, raw) {
  j__init()
  split("", J_type)
  split("", J_raw)
  split("", J__ctx)
  split("", J__pth)
  split("", J__key)
  split("", J__cnt)
  J__d = 0
  J__st = "V"
  J__err = 0
  J__obj = 0
  J__nv = 0
  J_full = 0
  J__nseq = 0
  J__redone = 0
  split("", J__seq)
  split("", J__at)
  n = j__split(s, P, "\"")
  if (n < 1)
    return 0
  pos = 1
  k = 1
  while (1) {
    # segment k lies outside any string and starts at byte pos
    seg = P[k]
    j__outside(seg, k == n)
    if (J__err || k == n)
      break
    # a string opens at the quote after segment k
    pos += length(seg) + 1
    spos = pos
    j = k + 1
    while (j < n) {
      len = length(P[j])
      # the quote after P[j] is escaped when P[j] ends in an odd
      # run of backslashes (mostly a run of exactly one)
      if (substr(P[j], len, 1) != "\\")
        break
      if (len > 1 && substr(P[j], len - 1, 1) == "\\" && !j__oddbs(P[j]))
        break
      pos += len + 1
      j++
    }
    if (j >= n) {
      # no closing quote: truncated inside a string
      J__err = 1
      break
    }
    if (j == k + 1)
      raw = P[j]
    else
      raw = substr(s, spos, pos + len - spos)
    j__string(raw)
    if (J__err)
      break
    pos += len + 1
    k = j + 1
  }
  return (!J__err && J__st == "E" && J__obj) ? 1 : 0
}

# 1 when x ends with an odd number of backslashes.  Looks at the tail in
# small pieces so a long segment is never walked character by character.
function j__oddbs(x,   L, c, t, m, i) {
  L = length(x)
  c = 0
  while (L > 0) {
    m = (L > 16) ? 16 : L
    t = substr(x, L - m + 1, m)
    for (i = m; i >= 1 && substr(t, i, 1) == "\\"; i--)
      c++
    if (i >= 1)
      break
    L -= m
  }
  return c % 2
}

# Cut s into pieces of about J__CH bytes, C[1..n]; returns n.  gsub and
# regex split (one regexec per match, and busybox awk re-measures the rest of
# the string at each one) then only ever run on short strings, which keeps
# them linear.  Each cut lies in the 256 bytes after J__CH bytes of a piece where
# nothing goes on across it (j__cutat): how "o", text outside strings; "s", a
# raw string body; "h", any bytes, kept whole UTF-8 sequences.  Where no such
# place lies near a cut (only inside a run of hundreds of backslashes) the
# rest is the last piece and J__cutok is 0.
function j__cut(s, C, how,   L, pos, n, w, k, rs, rl) {
  L = length(s)
  pos = 1
  n = 0
  J__cutok = 1
  rs = RSTART
  rl = RLENGTH
  while (L - pos + 1 > J__CH + 256) {
    w = substr(s, pos + J__CH, 256)
    k = j__cutat(w, how)
    if (k < 0) {
      J__cutok = 0
      break
    }
    C[++n] = substr(s, pos, k)
    pos += k
  }
  RSTART = rs
  RLENGTH = rl
  C[++n] = substr(s, pos)
  return n
}

# The length of the piece that ends in window w (J__CH + a cut in w), or -1.
# "o": after punctuation or whitespace.  "s": before a byte that no escape
# holds; else before a backslash that follows another byte (it starts an
# escape) unless it may be the second half of a surrogate pair; else before
# the seventh of seven bytes that are not backslashes.  "h": before a byte
# that is not a UTF-8 continuation byte, else after three of them.
function j__cutat(w, how) {
  if (how == "o")
    return match(w, /[][ \t\r\n{}:,]/) ? J__CH + RSTART : -1
  if (how == "h")
    return match(w, "[^" J__cont "]") ? J__CH + RSTART - 1 : J__CH + 3
  if (match(w, /[^\\"\/bfnrtu0-9A-Fa-f]/))
    return J__CH + RSTART - 1
  if (match(w, /[^\\]\\([^u]|u[^dD]|u[dD][^c-fC-F])/))
    return J__CH + RSTART
  if (match(w, /[^\\][^\\][^\\][^\\][^\\][^\\][^\\]/))
    return J__CH + RSTART + 5
  return -1
}

# Tokenise one segment that lies outside strings.  last is true for the final
# segment of the text: a trailing number or literal there with no delimiter
# after it may have been cut short, so it is not recorded.  A long segment (a
# big array of numbers) is tokenised in pieces (j__cut).
function j__outside(seg, last,   C, n, i) {
  if (seg == "")
    return
  if (length(seg) == 1 && index("{}[]:,", seg)) {
    j__tok(seg)
    return
  }
  if (length(seg) <= J__CH + 256) {
    j__outpiece(seg, last)
    return
  }
  n = j__cut(seg, C, "o")
  for (i = 1; i <= n && !J__err; i++)
    j__outpiece(C[i], last && i == n)
}

function j__outpiece(seg, last,   T, m, i, e, drop) {
  drop = (last && seg !~ /[][ \t\r\n{}:,]$/)
  gsub(/[][{}:,]/, " & ", seg)
  gsub(/[\t\r\n]/, " ", seg)
  m = split(seg, T, / +/)
  e = m
  if (drop) {
    while (e > 0 && T[e] == "")
      e--
    e--
  }
  for (i = 1; i <= e && !J__err; i++)
    if (T[i] != "")
      j__tok(T[i])
  if (drop)
    J__err = 1
}

function j__tok(t,   st) {
  st = J__st
  if (t == "{" || t == "[") {
    if (st == "V" || st == "VA")
      j__open((t == "{") ? "o" : "a")
    else
      J__err = 1
  } else if (t == "}") {
    if (st == "K" || (st == "C" && J__ctx[J__d] == "o"))
      j__close()
    else
      J__err = 1
  } else if (t == "]") {
    if (st == "VA" || (st == "C" && J__ctx[J__d] == "a"))
      j__close()
    else
      J__err = 1
  } else if (t == ":") {
    if (st == ":")
      J__st = "V"
    else
      J__err = 1
  } else if (t == ",") {
    if (st == "C")
      J__st = (J__ctx[J__d] == "o") ? "k" : "V"
    else
      J__err = 1
  } else if (st != "V" && st != "VA") {
    J__err = 1
  } else if (t == "true") {
    j__scalar("t", "")
  } else if (t == "false") {
    j__scalar("f", "")
  } else if (t == "null") {
    j__scalar("z", "")
  } else if (t ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && t !~ /^-?0[0-9]/) {
    j__scalar("n", t)
  } else if (t == "NaN" || t == "Infinity" || t == "-Infinity") {
    j__scalar("n", t)
  } else {
    J__err = 1
  }
}

# A complete string token (raw = text between the quotes).
function j__string(raw,   st) {
  st = J__st
  if (st != "V" && st != "VA" && st != "K" && st != "k") {
    J__err = 1
    return
  }
  if (!j__valid(raw)) {
    J__err = 1
    return
  }
  if (st == "K" || st == "k") {
    J__key[J__d] = j__dec(raw)
    J__st = ":"
    return
  }
  j__scalar("s", raw)
}

# A long raw string body in pieces for a check or decode piece by piece:
# their number, with the pieces in C; 0 when raw is short enough to take
# whole, -1 when it cannot be cut (j__cut).
function j__pieces(raw, C,   n) {
  if (length(raw) <= J__CH + 256)
    return 0
  n = j__cut(raw, C, "s")
  return J__cutok ? n : -1
}

# Validity of a raw string body: no raw control characters, only the escapes
# JSON allows.  The first regex has no false negatives; when it fires (any \u,
# or an escaped backslash followed by a letter) the exact check runs.
function j__valid(raw,   C, n, i) {
  if (raw ~ J__ctl)
    return 0
  if (J__nul != "" && index(raw, J__nul))
    return 0
  if (!index(raw, "\\"))
    return 1
  if (raw !~ /\\[^"\\\/bfnrt]/)
    return 1
  n = j__pieces(raw, C)
  if (n <= 0)
    return n ? j__validslow(raw) : j__validgs(raw)
  for (i = 1; i <= n; i++)
    if (!j__validgs(C[i]))
      return 0
  return 1
}

# Exact check of a short piece: with the escaped backslash pairs removed,
# every backslash left starts an escape.
function j__validgs(r) {
  if (index(r, "\\\\"))
    gsub(/\\\\/, "", r)
  if (r ~ /\\[^"\/bfnrtu]/ || r ~ /\\$/)
    return 0
  if (index(r, "\\u")) {
    if (r ~ /\\u[0-9A-Fa-f]?[0-9A-Fa-f]?[0-9A-Fa-f]?[^0-9A-Fa-f]/)
      return 0
    if (r ~ /\\u[0-9A-Fa-f]?[0-9A-Fa-f]?[0-9A-Fa-f]?$/)
      return 0
  }
  return 1
}

# Exact check one escape at a time (linear, slower); fallback only.
function j__validslow(raw,   B, m, i, b, c) {
  m = j__split(raw, B, "\\")
  for (i = 2; i <= m; i++) {
    b = B[i]
    if (b == "") {
      # an escaped backslash: the next piece is plain text
      if (i == m)
        return 0
      i++
      continue
    }
    c = substr(b, 1, 1)
    if (c == "u") {
      if (substr(b, 2, 4) !~ /^[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]$/)
        return 0
    } else if (!index("\"/bfnrt", c)) {
      return 0
    }
  }
  return 1
}

# Path for the next value in the current container (depth J__d >= 1).
function j__slot(   d, k) {
  d = J__d
  if (J__ctx[d] == "a") {
    k = J__cnt[d]
    J__cnt[d] = k + 1
    k = k ""
  } else {
    k = J__key[d]
  }
  return (d == 1) ? k : (J__pth[d] SUBSEP k)
}

# Store a value at p.  A duplicate key replaces the earlier value and drops
# its whole subtree, as Python does (the last one wins).
function j__set(p, t, raw,   k, L, m, i, pre) {
  if (J_max && ++J__nv > J_max) {
    J_full = 1
    J__err = 1
    return
  }
  # only a container has a subtree; the scan of it counts against the bound
  if (J_order) {
    if (p in J__at)
      J__redone = 1
    else {
      J__seq[++J__nseq] = p
      J__at[p] = J__nseq
    }
  }
  if (p in J_type && (J_type[p] == "o" || J_type[p] == "a")) {
    pre = p SUBSEP
    m = 0
    for (k in J_type) {
      J__nv++
      if (index(k, pre) == 1)
        L[++m] = k
    }
    for (i = 1; i <= m; i++) {
      delete J_type[L[i]]
      delete J_raw[L[i]]
    }
  }
  J_type[p] = t
  if (t == "s" || t == "n")
    J_raw[p] = raw
  else
    delete J_raw[p]
}

function j__scalar(t, raw) {
  if (J__d == 0) {
    # a bare top-level scalar: valid JSON but not an object
    J__st = "E"
    return
  }
  j__set(j__slot(), t, raw)
  J__st = "C"
}

function j__open(t,   p) {
  # no hook payload nests this deep; deeper input would cost memory and time
  # quadratic in the depth (every container keeps its path), so it ends here
  if (J__d >= 128) {
    J__err = 1
    return
  }
  if (J__d == 0) {
    p = ""
    J__obj = (t == "o")
  } else {
    p = j__slot()
    j__set(p, t, "")
  }
  J__d++
  J__ctx[J__d] = t
  J__pth[J__d] = p
  J__cnt[J__d] = 0
  J__st = (t == "o") ? "K" : "VA"
}

function j__close() {
  J__d--
  J__st = (J__d == 0) ? "E" : "C"
}

function j__hex(h,   v, i) {
  h = tolower(h)
  v = 0
  for (i = 1; i <= 4; i++)
    v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
  return v
}

# UTF-8 bytes of code point cp; surrogates get their 3-byte form.
function j__utf8(cp) {
  if (cp < 128)
    return J__chr[cp]
  if (cp < 2048)
    return J__chr[192 + int(cp / 64)] J__chr[128 + cp % 64]
  if (cp < 65536)
    return J__chr[224 + int(cp / 4096)] J__chr[128 + int(cp / 64) % 64] J__chr[128 + cp % 64]
  return J__chr[240 + int(cp / 262144)] J__chr[128 + int(cp / 4096) % 64] J__chr[128 + int(cp / 64) % 64] J__chr[128 + cp % 64]
}

# Decode the escapes of a raw string body in linear time.  Long strings are
# cut into pieces (j__cut) that are decoded one by one.  In a piece,
# the escaped backslash pairs become a placeholder byte (or split the piece),
# so that every backslash left starts an escape: the named escapes are plain
# gsubs and the \u escapes are handled by one split.  A \u escape of a lone surrogate (one without its
# partner) decodes to U+FFFD: the bytes it would give are not UTF-8.
function j__dec(raw,   C, n, i) {
  if (!index(raw, "\\"))
    return raw
  j__init()
  n = j__pieces(raw, C)
  if (n <= 0)
    return j__decgs(raw)
  for (i = 1; i <= n; i++)
    C[i] = j__decgs(C[i])
  return j__join(C, n, "")
}

function j__decgs(raw,   B, m, i, ph) {
  if (!index(raw, "\\\\"))
    return j__decpart(raw)
  # the pairs become a placeholder control byte (a valid raw string holds
  # none, and none of its \u escapes may give it), else the pairs split it
  ph = ""
  for (i = 1; i < 32; i++) {
    if (i == 8 || i == 9 || i == 10 || i == 12 || i == 13)
      continue
    if (index(raw, J__chr[i]) || index(raw, J__en[i]) || index(raw, "\\u" toupper(substr(J__en[i], 3))))
      continue
    ph = J__chr[i]
    break
  }
  if (ph != "") {
    gsub(/\\\\/, ph, raw)
    m = j__split(j__decpart(raw), B, ph)
  } else {
    m = split(raw, B, /\\\\/)
    for (i = 1; i <= m; i++)
      B[i] = j__decpart(B[i])
  }
  return j__join(B, m, "\\")
}

# A part without escaped backslash pairs: every backslash starts an escape.
function j__decpart(r,   i, m, B, O, c, b, h, cp, nx) {
  if (!index(r, "\\"))
    return r
  if (index(r, "\\n"))
    gsub(/\\n/, J__chr[10], r)
  if (index(r, "\\t"))
    gsub(/\\t/, J__chr[9], r)
  if (index(r, "\\\""))
    gsub(/\\"/, "\"", r)
  if (index(r, "\\/"))
    gsub(/\\\//, "/", r)
  if (index(r, "\\r"))
    gsub(/\\r/, J__chr[13], r)
  if (index(r, "\\b"))
    gsub(/\\b/, J__chr[8], r)
  if (index(r, "\\f"))
    gsub(/\\f/, J__chr[12], r)
  if (!index(r, "\\"))
    return r
  # what is left are \u escapes
  m = j__split(r, B, "\\")
  c = 1
  O[1] = B[1]
  for (i = 2; i <= m; i++) {
    b = B[i]
    h = substr(b, 2, 4)
    if (h in J__u8) {
      O[++c] = J__u8[h] substr(b, 6)
      continue
    }
    cp = j__hex(h)
    if (cp < 55296 || cp >= 57344) {
      J__u8[h] = j__utf8(cp)
      O[++c] = J__u8[h] substr(b, 6)
      continue
    }
    nx = (cp < 56320 && length(b) == 5 && i < m) ? substr(B[i + 1], 1, 5) : ""
    if (nx ~ /^u[dD][c-fC-F][0-9a-fA-F][0-9a-fA-F]$/) {
      O[++c] = j__utf8(65536 + (cp - 55296) * 1024 + j__hex(substr(nx, 2, 4)) - 56320)
      b = B[++i]
    } else {
      O[++c] = J__fffd
    }
    O[++c] = substr(b, 6)
  }
  return j__join(O, c, "")
}

function j_has(p) {
  return (p in J_type) ? 1 : 0
}

function j_is(p, t) {
  return ((p in J_type) && J_type[p] == t) ? 1 : 0
}

function j_str(p) {
  if ((p in J_type) && J_type[p] == "s")
    return j__dec(J_raw[p])
  return ""
}

# Escape for a JSON string literal: backslash, double quote, bytes below 0x20
# (named escapes where JSON has them, else \u00XX) and 0x7f; every other
# non-ASCII character as \uXXXX (a surrogate pair above U+FFFF), and bytes
# that are not UTF-8 as \ufffd, one for each maximal ill-formed part as
# Python decodes with errors="replace".  The result is plain ASCII: a shell
# that cannot hold other bytes in the C locale (yash) passes it on intact.
function j_esc(s) {
  j__init()
  return j__escape(s, J__en, "u")
}

# Escape for printf %b on one line: backslash doubled, bytes below 0x20 and
# 0x7f and every non-ASCII byte as \0ooo; bytes that are not UTF-8 become the
# bytes of U+FFFD as j_esc says.  Plain ASCII, and printf %b gives back valid
# UTF-8.
function j_pct(s) {
  j__init()
  return j__escape(s, J__oc, "o")
}

# s with backslashes doubled, control bytes and 0x7f as E says, non-ASCII as
# how says (j__hi), and with how "u" double quotes escaped.
function j__escape(s, E, how,   A, n, i) {
  if (index(s, "\\")) {
    n = j__split(s, A, "\\")
    s = j__join(A, n, "\\\\")
  }
  if (how == "u" && index(s, "\"")) {
    n = j__split(s, A, "\"")
    s = j__join(A, n, "\\\"")
  }
  if (s ~ J__ctl || index(s, J__del) || (J__nul != "" && index(s, J__nul))) {
    for (i = 0; i < 32; i++)
      if (J__chr[i] != "" && index(s, J__chr[i])) {
        n = j__split(s, A, J__chr[i])
        s = j__join(A, n, E[i])
      }
    if (index(s, J__del)) {
      n = j__split(s, A, J__del)
      s = j__join(A, n, E[127])
    }
  }
  if (s ~ J__hi1)
    s = j__hi(s, how)
  return s
}

# Non-ASCII runs of s in ASCII form (how: "u" JSON escapes, "o" octal bytes),
# a long s in pieces (j__cut) that keep each UTF-8 sequence whole.
function j__hi(s, how,   n, C, i) {
  if (length(s) <= J__CH + 256)
    return j__hipiece(s, how)
  n = j__cut(s, C, "h")
  for (i = 1; i <= n; i++)
    C[i] = j__hipiece(C[i], how)
  return j__join(C, n, "")
}

function j__hipiece(s, how,   A, n, H, m, i, c, O, r) {
  n = split(s, A, J__hirun)
  m = split(s, H, J__lorun)
  O[1] = A[1]
  c = 1
  r = 1
  for (i = 1; i <= m; i++) {
    if (H[i] == "")
      continue
    O[++c] = j__run(H[i], how)
    O[++c] = A[++r]
  }
  return j__join(O, c, "")
}

# One run of non-ASCII bytes, decoded as UTF-8 the strict way (no overlongs,
# no surrogates, nothing above U+10FFFF).
function j__run(h, how,   k, L, i, b, need, lo, hi, cp, j, c, O, n, ok) {
  k = how h
  if (k in J__hx)
    return J__hx[k]
  L = length(h)
  n = 0
  i = 1
  while (i <= L) {
    b = J__ord[substr(h, i, 1)]
    need = (b in J__need) ? J__need[b] : 0
    if (need) {
      lo = J__lo[b]
      hi = J__hi[b]
      cp = b - J__base[need]
    }
    ok = need > 0
    for (j = 1; j <= need; j++) {
      c = J__ord[substr(h, i + j, 1)]
      if (c < lo || c > hi) {
        ok = 0
        break
      }
      cp = cp * 64 + c - 128
      lo = 128
      hi = 191
    }
    if (!ok) {
      O[++n] = (how == "u") ? "\\ufffd" : "\\0357\\0277\\0275"
      i += (j > 1) ? j : 1
      continue
    }
    if (how == "o") {
      for (j = 0; j <= need; j++)
        O[++n] = sprintf("\\0%03o", J__ord[substr(h, i + j, 1)])
    } else if (cp < 65536) {
      O[++n] = sprintf("\\u%04x", cp)
    } else {
      cp -= 65536
      O[++n] = sprintf("\\u%04x\\u%04x", 55296 + int(cp / 1024), 56320 + cp % 1024)
    }
    i += need + 1
  }
  k = j__join(O, n, "")
  if (L <= 16)
    J__hx[how h] = k
  return k
}

# At most n bytes of s without splitting a UTF-8 sequence.
function j_cap(s, n,   k, i) {
  j__init()
  n = int(n + 0)
  if (n < 0)
    n = 0
  if (length(s) <= n)
    return s
  k = n
  if (index(J__cont, substr(s, k + 1, 1))) {
    # the cut falls inside a character: back off to its lead byte
    for (i = 0; i < 3 && k > 0 && index(J__cont, substr(s, k, 1)); i++)
      k--
    if (k > 0 && index(J__lead, substr(s, k, 1)))
      k--
  }
  return substr(s, 1, k)
}

# Whole file as one string, lines joined with newlines ("" when it cannot be
# opened).  RS is forced to a newline while reading and restored afterwards.
# The value at p as compact JSON, from the document order the parse kept
# (J_order): containers opened and closed as their members come, strings
# re-escaped by j_esc, numbers and literals as written.  A key given twice
# anywhere in the document (its later value replaced the earlier one, out of
# order) makes the value unknowable here: "".  So does a value over n bytes.
function j_dump(p, n,   A, m, i, e, S, d, c, pre, out, t, kid, first) {
  if (!(p in J_type) || !(p in J__at) || J__redone)
    return ""
  t = J_type[p]
  if (t != "o" && t != "a")
    return j__dumpval(p, t)
  m = 0
  out = 0
  S[d = 1] = p
  first[1] = 1
  A[++m] = (t == "o") ? "{" : "["
  pre = p SUBSEP
  for (i = J__at[p] + 1; i <= J__nseq; i++) {
    e = J__seq[i]
    if (index(e, pre) != 1)
      break
    if (!(e in J_type))
      continue
    # close the containers e is not inside
    while (d > 1 && index(e, S[d] SUBSEP) != 1) {
      A[++m] = (J_type[S[d]] == "o") ? "}" : "]"
      d--
    }
    kid = substr(e, length(S[d]) + 2)
    if (index(kid, SUBSEP))
      return ""
    c = first[d] ? "" : ","
    first[d] = 0
    if (J_type[S[d]] == "o")
      c = c "\"" j_esc(kid) "\":"
    t = J_type[e]
    if (t == "o" || t == "a") {
      A[++m] = c ((t == "o") ? "{" : "[")
      S[++d] = e
      first[d] = 1
    } else
      A[++m] = c j__dumpval(e, t)
    out += length(A[m])
    if (out > n)
      return ""
  }
  while (d >= 1) {
    A[++m] = (J_type[S[d]] == "o") ? "}" : "]"
    d--
  }
  e = j__join(A, m, "")
  return length(e) > n ? "" : e
}

function j__dumpval(p, t) {
  if (t == "s")
    return "\"" j_esc(j_str(p)) "\""
  if (t == "n")
    return J_raw[p]
  return (t == "t") ? "true" : (t == "f") ? "false" : (t == "z") ? "null" : (t == "o") ? "{}" : "[]"
}

function j_readfile(f,   L, n, r, line, ors) {
  ors = RS
  RS = "\n"
  n = 0
  while ((r = (getline line < f)) > 0)
    L[++n] = line
  RS = ors
  if (r < 0 && n == 0)
    return ""
  close(f)
  return j__join(L, n, "\n")
}
