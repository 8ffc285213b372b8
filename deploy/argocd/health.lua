-- Argo CD health check for helm.sh/HelmRequest (kstatus conditions).
-- Install: resource.customizations.health.helm.sh_HelmRequest in argocd-cm, this file as value.
-- Rules: status not yet observed for this generation -> Progressing; Stalled -> Degraded;
-- Ready True -> Healthy; Ready reason Suspended -> Suspended; Reconciling -> Progressing;
-- Ready False -> Degraded; anything else -> Progressing.
local hs = { status = "Progressing", message = "Waiting for the controller" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
local generation = obj.metadata and obj.metadata.generation
if generation ~= nil and obj.status.observedGeneration ~= generation then
  hs.message = "Waiting for the controller to observe generation " .. tostring(generation)
  return hs
end
local found = {}
for _, condition in ipairs(obj.status.conditions) do
  found[condition.type] = condition
end
local ready, stalled, reconciling = found["Ready"], found["Stalled"], found["Reconciling"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = stalled.message or stalled.reason or "Stalled"
elseif ready ~= nil and ready.reason == "Suspended" then
  hs.status = "Suspended"
  hs.message = ready.message or "Reconciliation is suspended"
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or "Ready"
elseif reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = reconciling.message or "Reconciling"
elseif ready ~= nil and ready.status == "False" then
  hs.status = "Degraded"
  hs.message = ready.message or ready.reason or "Not ready"
end
return hs
