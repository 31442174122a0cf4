-- PLACEHOLDER (being written): Red Storm over the Reich 13, combat. Only the segment hooks the
-- sequence calls exist yet; no attack verb.
local M = {}
function M.begin_segment(side) end
function M.end_segment(side) end
return M
