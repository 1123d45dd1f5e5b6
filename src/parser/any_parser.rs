//! [`AnyParser`]: the greedy [`Parser`] or the [`BeamParser`], chosen by
//! beam width — above both, so that the model and the beam each depend only
//! on what lies below them.

use super::beam::BeamParser;
use super::features::Tokens;
use super::model::{Model, Parser};

/// The greedy [`Parser`] or the [`BeamParser`],
/// by beam width (1: greedy, the faster of the two for it; both give the
/// same trees at width 1).
pub enum AnyParser<'m> {
    Greedy(Parser<'m>),
    Beam(BeamParser<'m>),
}

impl<'m> AnyParser<'m> {
    /// A parser of `model` with a beam of `width`.
    pub fn new(model: &'m Model, width: usize) -> Self {
        if width <= 1 {
            AnyParser::Greedy(Parser::new(model))
        } else {
            AnyParser::Beam(BeamParser::new(model, width))
        }
    }

    /// Parses a sentence; the heads and labels of words 1 … n. A beam
    /// whose memory would exceed the limit is refused
    /// ([`super::beam::beam_memory`]).
    pub fn parse(&mut self, tokens: &Tokens) -> Result<(&[usize], &[u32]), crate::memory::TooMuchMemory> {
        Ok(match self {
            AnyParser::Greedy(p) => {
                p.parse(tokens);
                (&p.heads, &p.labels)
            }
            AnyParser::Beam(p) => {
                p.parse(tokens)?;
                (&p.heads, &p.labels)
            }
        })
    }
}
