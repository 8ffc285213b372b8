-- Lifecycle handlers of the lua-postrender example chart.
local labels = require("lib.labels")

-- Before rendering: values may be changed and the templates see the change.
events.on("pre-render", 0.5, function(_)
  if _.values.replicaCount < 1 then
    _.values.replicaCount = 1
  end
end)

-- After rendering: add, change and remove objects; what is installed (or printed by
-- `helm-core template`) is the list as this handler leaves it.
events.on("post-render", 0.5, function(_)
  local kept = array()
  for i, obj in ipairs(_.objects) do
    local ann = obj.metadata and obj.metadata.annotations or {}
    if _.values.debug or ann["example.com/debug-only"] ~= "true" then
      labels.add(obj, {team = _.values.team, ["app.kubernetes.io/managed-by"] = "Helm"})
      kept[#kept + 1] = obj
    else
      print("dropping " .. obj.kind .. "/" .. obj.metadata.name .. " (debug is off)")
    end
  end
  -- One PodDisruptionBudget per Deployment that runs more than one replica.
  for i, obj in ipairs(kept) do
    if obj.kind == "Deployment" and (obj.spec.replicas or 1) > 1 then
      kept[#kept + 1] = {
        apiVersion = "policy/v1",
        kind = "PodDisruptionBudget",
        metadata = {name = obj.metadata.name, labels = {team = _.values.team}},
        spec = {minAvailable = 1, selector = {matchLabels = obj.spec.selector.matchLabels}},
      }
    end
  end
  _.objects = kept
end)
