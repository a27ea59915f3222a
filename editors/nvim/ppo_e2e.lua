-- End-to-end test of `ppo lsp` with Neovim's built-in LSP client (run by scripts/nvim_e2e.sh):
-- open a C file, wait for the server's diagnostics, ask for the code actions at a loop header,
-- apply "Parallelize loop (OpenMP)" (resolved with codeAction/resolve when listed without its
-- edit), wait for the diagnostics of the edited buffer (sent to the server by Neovim's
-- incremental sync), write the file, stop the server and quit. Exit status 0 only when all of
-- it happened; the script then checks the file on disk.
--
-- Environment: PPO_BIN (the ppo binary), PPO_FILE (the C file, edited in place),
-- PPO_LOOP (text of the loop header line to parallelize).
-- Works with Neovim 0.7 (vim.lsp.start_client) and 0.8+ (vim.lsp.start).

local TIMEOUT = 30000

local function log(msg)
  io.stdout:write('nvim_e2e: ' .. msg .. '\n')
  io.stdout:flush()
end

local function fail(msg)
  io.stderr:write('nvim_e2e: FAIL: ' .. msg .. '\n')
  io.stderr:flush()
  vim.cmd('cquit 1')
end

local function run()
  local ppo = assert(os.getenv('PPO_BIN'), 'PPO_BIN is not set')
  local file = assert(os.getenv('PPO_FILE'), 'PPO_FILE is not set')
  local header = assert(os.getenv('PPO_LOOP'), 'PPO_LOOP is not set')
  log('Neovim ' .. tostring(vim.version().major) .. '.' .. tostring(vim.version().minor) .. '.' .. tostring(vim.version().patch))

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'c'

  local config = {
    name = 'ppo',
    cmd = { ppo, 'lsp' },
    root_dir = vim.fn.fnamemodify(file, ':p:h'),
    init_options = { ppo = { hints = { parallelizable = 'hint' } } },
  }
  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config, { bufnr = buf })
  else
    client_id = vim.lsp.start_client(config)
    if client_id then
      vim.lsp.buf_attach_client(buf, client_id)
    end
  end
  if not client_id then
    return fail('could not start ' .. ppo .. ' lsp')
  end
  local client
  if not vim.wait(TIMEOUT, function()
    client = vim.lsp.get_client_by_id(client_id)
    return client ~= nil and client.initialized and vim.lsp.buf_is_attached(buf, client_id)
  end, 20) then
    return fail('the client did not initialize and attach')
  end
  log('attached: ' .. client.name .. ' (' .. table.concat(config.cmd, ' ') .. ')')

  -- The 0-based line of the loop header.
  local function header_line()
    for i, l in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if l:find(header, 1, true) then
        return i - 1
      end
    end
  end
  local function code_of(d)
    return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  end
  local function hint_on(line)
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum == line and code_of(d) == 'PPO130' then
        return d
      end
    end
  end

  local line = header_line()
  if not line then
    return fail('no line contains ' .. header)
  end
  if not vim.wait(TIMEOUT, function() return hint_on(line) ~= nil end, 20) then
    return fail('no PPO130 diagnostic on line ' .. (line + 1) .. ' (got ' .. #vim.diagnostic.get(buf) .. ' diagnostics)')
  end
  local hints_before = 0
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if code_of(d) == 'PPO130' then
      hints_before = hints_before + 1
    end
  end
  log(('diagnostics: %d, PPO130 on line %d: %s'):format(#vim.diagnostic.get(buf), line + 1, hint_on(line).message))

  -- textDocument/codeAction at the loop header, with the hint as context.
  -- The hint back in LSP form (Neovim keeps only some of the LSP fields in user_data.lsp).
  local d = hint_on(line)
  local lsp_diag = vim.tbl_extend('force', (d.user_data and d.user_data.lsp) or {}, {
    range = {
      start = { line = d.lnum, character = d.col },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
    code = code_of(d),
  })
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
    context = { diagnostics = { lsp_diag } },
  }
  local resp, err = client.request_sync('textDocument/codeAction', params, TIMEOUT, buf)
  if not resp or resp.err then
    return fail('textDocument/codeAction: ' .. vim.inspect(err or resp.err))
  end
  local action
  local titles = {}
  for _, a in ipairs(resp.result or {}) do
    table.insert(titles, a.title)
    if not action and a.title:find('Parallelize loop (OpenMP)', 1, true) == 1 then
      action = a
    end
  end
  if not action then
    return fail('no "Parallelize loop (OpenMP)" action among ' .. vim.inspect(titles))
  end
  log('code action: ' .. action.title)
  if not action.edit then
    local r, e = client.request_sync('codeAction/resolve', action, TIMEOUT, buf)
    if not r or r.err or not r.result or not r.result.edit then
      return fail('codeAction/resolve: ' .. vim.inspect(e or (r and r.err) or r))
    end
    action = r.result
    log('resolved with codeAction/resolve')
  end
  vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding or 'utf-16')

  local new_line = header_line()
  local above = vim.api.nvim_buf_get_lines(buf, new_line - 1, new_line, false)[1] or ''
  if not above:match('^%s*#pragma omp parallel for') then
    return fail('after the edit, the line above the loop is: ' .. above)
  end
  log('inserted: ' .. vim.trim(above))

  -- The server gets the change (didChange) and analyses the new text: the hint goes away.
  if not vim.wait(TIMEOUT, function()
    local n = 0
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if code_of(d) == 'PPO130' then
        n = n + 1
      end
    end
    return hint_on(new_line) == nil and n == hints_before - 1
  end, 20) then
    return fail('the diagnostics were not updated after the edit')
  end
  log('diagnostics updated after the edit')

  vim.cmd('silent write')
  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 20)
  log('ok')
  vim.cmd('qall!')
end

local ok, e = pcall(run)
if not ok then
  fail(tostring(e))
end
