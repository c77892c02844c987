# Output dialects: the way of each vendor to add context, block a tool, or keep the agent working.
# Every function sets EM_out (one JSON object or ""), EM_err (one line for stderr or "") and
# EM_exit ("0", or "v" for a verdict the shell turns into the block exit code). Both texts are
# plain ASCII for the shell: the JSON escapes every other character (j_esc), and the stderr line
# is in printf %b form (j_pct), so what reaches the vendor is always valid UTF-8.

function em_reset() { EM_out = ""; EM_err = ""; EM_exit = "0" }

function em_line(s) { gsub(/[\r\n]+/, " ", s); return s }

function em_errline(s) { return j_pct(em_line(s)) }

function em_context(vend, role, text,    d) {
  em_reset()
  d = V_ctx[vend]
  if (text == "" || !v_in(V_ctxroles[vend], role)) return 0
  if (d == "hso")
    EM_out = "{\"hookSpecificOutput\":{\"hookEventName\":\"" j_esc(V_ev[vend, role]) "\",\"additionalContext\":\"" j_esc(text) "\"}}"
  else if (d == "inject-steps")
    EM_out = "{\"injectSteps\":[{\"ephemeralMessage\":\"" j_esc(text) "\"}]}"
  return EM_out != ""
}

function em_tool_block(vend, reason,    d) {
  em_reset()
  d = V_tblock[vend]
  if (d == "hso-deny")
    EM_out = "{\"hookSpecificOutput\":{\"hookEventName\":\"" j_esc(V_ev[vend, "pre_tool"]) "\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"" j_esc(reason) "\"}}"
  else if (d == "decision-deny" || d == "decision-deny-agy")
    EM_out = "{\"decision\":\"deny\",\"reason\":\"" j_esc(reason) "\"}"
  else { EM_err = em_errline(reason); EM_exit = "v" }
}

function em_tool_warn(vend, text,    d) {
  em_reset()
  d = V_twarn[vend]
  if (d == "context") em_context(vend, "pre_tool", text)
  else if (d == "stderr") EM_err = em_errline(text)
}

function em_stop_block(vend, reason,    d) {
  em_reset()
  d = V_sblock[vend]
  if (d == "decision-block") EM_out = "{\"decision\":\"block\",\"reason\":\"" j_esc(reason) "\"}"
  else if (d == "decision-deny") EM_out = "{\"decision\":\"deny\",\"reason\":\"" j_esc(reason) "\"}"
  else if (d == "decision-continue") EM_out = "{\"decision\":\"continue\",\"reason\":\"" j_esc(reason) "\"}"
  else { EM_err = em_errline(reason); EM_exit = "v" }
}

function em_stop_suggest(vend, text,    d) {
  em_reset()
  d = V_ssuggest[vend]
  if (d == "system-message") EM_out = "{\"systemMessage\":\"" j_esc(text) "\"}"
  else if (d == "stderr") EM_err = em_errline(text)
}

# the result protocol: one field per line, in a fixed order, each line prefixed by ":" so an
# empty field still makes a line; the shell pops them in the same order
function em_field(s) { printf ":%s\n", em_line(s) }
function em_result() { em_field(EM_out); em_field(EM_err); em_field(EM_exit) }
