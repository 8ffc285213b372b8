-- Helpers shared by chart.lua (loaded with require("lib.labels")).
local M = {}

-- Add the given labels to an object's metadata, creating the table if needed.
function M.add(obj, labels)
  obj.metadata = obj.metadata or {}
  obj.metadata.labels = obj.metadata.labels or {}
  for k, v in pairs(labels) do
    obj.metadata.labels[k] = v
  end
end

return M
