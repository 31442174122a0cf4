-- PLACEHOLDER (being written): Red Storm over the Reich 14, overruns.
return {}
