//! Registration: a tool is registered only if what its schema promises is
//! what the gates enforce (`runtime/src/register`), and the toolbox shows
//! what was registered.

pub mod instance_builder;
pub mod toolbox;
pub mod trusted_names;
pub mod unenforced_bounds;
pub mod unread_keywords;
