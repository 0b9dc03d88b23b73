# Filled in by the report layer: embeds the npm chart library (vega, vega-lite, vega-embed).
