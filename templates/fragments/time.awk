# Time without forks: POSIX srand() returns the previous seed, so srand() twice gives the
# current epoch second. Civil <-> epoch conversions are the days-from-civil algorithm (UTC).

function t_now(    t) {
  srand()
  t = srand()
  return t
}

function t_days(y, m, d,    era, yoe, doy, doe) {
  y -= (m <= 2)
  era = int((y >= 0 ? y : y - 399) / 400)
  yoe = y - era * 400
  doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

# ISO-8601 (YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM|-HH:MM]) -> epoch seconds; -1 if unparsable
function t_iso(s,    y, mo, d, h, mi, se, rest, sign, off) {
  if (s !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ][0-9][0-9]:[0-9][0-9](:[0-9][0-9])?/) return -1
  y = substr(s, 1, 4) + 0; mo = substr(s, 6, 2) + 0; d = substr(s, 9, 2) + 0
  h = substr(s, 12, 2) + 0; mi = substr(s, 15, 2) + 0
  se = (substr(s, 17, 1) == ":") ? substr(s, 18, 2) + 0 : 0
  rest = substr(s, (substr(s, 17, 1) == ":") ? 20 : 17)
  sub(/^\.[0-9]+/, "", rest)
  off = 0
  if (rest ~ /^[+-][0-9][0-9]:?[0-9][0-9]/) {
    sign = substr(rest, 1, 1) == "-" ? -1 : 1
    gsub(/:/, "", rest)
    off = sign * (substr(rest, 2, 2) * 3600 + substr(rest, 4, 2) * 60)
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return -1
  return t_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off
}

function t_fmt(epoch,    z, era, doe, yoe, doy, mp, d, m, y, s) {
  z = int(epoch / 86400) + 719468
  s = epoch - int(epoch / 86400) * 86400
  era = int((z >= 0 ? z : z - 146096) / 146097)
  doe = z - era * 146097
  yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
  y = yoe + era * 400
  doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
  mp = int((5 * doy + 2) / 153)
  d = doy - int((153 * mp + 2) / 5) + 1
  m = mp + (mp < 10 ? 3 : -9)
  y += (m <= 2)
  return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, int(s / 3600), int(s % 3600 / 60), s % 60)
}
