# Output dialects: the way of each vendor to add context, block a tool, or keep the agent working.
# Every function sets EM_out (one JSON object or ""), EM_err (one line for stderr or "") and
# EM_exit ("0", or "v" for a verdict: deny or stop, on stdout or on stderr; the shell exits the
# code that says a verdict was written, and its gate turns it into the vendor's). Both texts are
# plain ASCII for the shell: the JSON escapes every other character (j_esc), and the stderr line
# is in printf %b form (j_pct), so what reaches the vendor is always valid UTF-8.

function em_reset() { EM_out = ""; EM_err = ""; EM_exit = "0" }

function em_line(s) { gsub(/[\r\n]+/, " ", s); return s }

function em_errline(s) { return j_pct(em_line(s)) }

# one answer of the vendor (profile [output.<kind>], rendered into V_out / V_err): the JSON of
# V_out with the escaped text and event where its template holds \034t and \034e (and a
# rewrite's input, compact JSON, where it holds \034i), or the text on stderr (a verdict for the
# blocking kinds), or nothing
function em_answer(vend, kind, role, text, input,    parts, n, i, c) {
  em_reset()
  if (V_out[vend, kind] != "") {
    n = split(V_out[vend, kind], parts, "\034")
    EM_out = parts[1]
    for (i = 2; i <= n; i++) {
      c = substr(parts[i], 1, 1)
      EM_out = EM_out (c == "i" ? input : j_esc(c == "t" ? text : V_ev[vend, role])) substr(parts[i], 2)
    }
  } else if (V_err[vend, kind]) {
    EM_err = em_errline(text)
  } else return
  # the answers that keep a call (or a stop, or a prompt) from going on as it was
  if (index(" deny stop ask block refuse rewrite ", " " kind " ")) EM_exit = "v"
}

function em_context(vend, role, text) {
  em_reset()
  if (text == "" || !v_in(V_ctxroles[vend], role)) return 0
  em_answer(vend, "context", role, text)
  return EM_out != ""
}

function em_tool_block(vend, reason) { em_answer(vend, "deny", "pre_tool", reason) }

function em_tool_warn(vend, text) {
  if (V_wctx[vend]) em_context(vend, "pre_tool", text)
  else em_answer(vend, "warn", "pre_tool", text)
}

function em_stop_block(vend, reason) { em_answer(vend, "stop", "stop", reason) }

function em_stop_suggest(vend, text) { em_answer(vend, "suggest", "stop", text) }

# the result protocol: one field per line, in a fixed order, each line prefixed by ":" so an
# empty field still makes a line; the shell pops them in the same order
function em_field(s) { printf ":%s\n", em_line(s) }
function em_result() { em_field(EM_out); em_field(EM_err); em_field(EM_exit) }
