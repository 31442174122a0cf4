//! Pictures of the map: as text for the terminal (`map`), as SVG for a file (`map --svg`).

pub mod svg;
pub mod text;
