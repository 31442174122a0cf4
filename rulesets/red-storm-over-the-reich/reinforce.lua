-- PLACEHOLDER (being written): Red Storm over the Reich 8, reinforcements and replacements.
local M = {}
function M.german_start() end
function M.german_end() end
function M.soviet_start() end
function M.soviet_end() end
return M
