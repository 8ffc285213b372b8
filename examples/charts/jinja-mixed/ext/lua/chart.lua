-- Templates that start with the comment {# jinja2 #} render with Jinja2 instead of Go templates.
events.on("pre-render", 0.5, function(_)
  local templates = _.templates
  for i, t in ipairs(templates) do
    if string.sub(t.data, 1, 12) == "{# jinja2 #}" then
      t.engine = "jinja2"
    end
  end
  _.templates = templates
end)
