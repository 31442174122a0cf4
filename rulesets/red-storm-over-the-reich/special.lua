-- PLACEHOLDER (being written): Red Storm over the Reich 17, special rules.
local M = {}
function M.strategic_start() end
return M
