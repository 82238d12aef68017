//! Matched sets: the tuples a policy hands out, one item per input, and the typed storage a
//! policy keeps for each input.
//!
//! Inputs have types of their own (a point cloud and an image), so a policy's storage is a
//! tuple too, one queue per input. The policies' matching works on the stamps alone, in
//! arrays indexed by input; the items follow the same moves in these typed queues, which only
//! ever lose their front element (see [`Set`]).

use std::collections::VecDeque;

use super::MAX_INPUTS;

/// A matched set: a tuple of 2 to [`MAX_INPUTS`] items, one per input, in the order of the
/// inputs (`(A, B)`, `(A, B, C)`, ...).
///
/// Implemented for tuples of 2 to 9 elements, which is what message_filters' policies
/// synchronize; it cannot be implemented outside tacto. A policy's storage follows from it.
pub trait Set: Sized + sealed::Sealed {
    /// How many inputs the set has.
    const INPUTS: usize;
    /// One queue per input, oldest item first.
    #[doc(hidden)]
    type Queues: Default;
    /// One optional item per input: a set being filled.
    #[doc(hidden)]
    type Partial: Default;
    /// Removes the oldest item of `input`, if there is one.
    #[doc(hidden)]
    fn pop_front(queues: &mut Self::Queues, input: usize) -> bool;
    /// The oldest item of every input, removed, if every input has one.
    #[doc(hidden)]
    fn pop_fronts(queues: &mut Self::Queues) -> Option<Self>;
    /// The set, taken out of `partial`, if it holds an item for every input.
    #[doc(hidden)]
    fn complete(partial: &mut Self::Partial) -> Option<Self>;
    /// Adds 1 to `counts[i]` for each input `i` whose item `partial` holds.
    #[doc(hidden)]
    fn count_present(partial: &Self::Partial, counts: &mut [u64; MAX_INPUTS]);
}

/// Input `K` of a [`Set`]: its item type, for a policy's `add::<K>`.
pub trait Slot<const K: usize>: Set {
    /// The type of the item of input `K`.
    type Item;
    /// Input `K`'s queue.
    #[doc(hidden)]
    fn queue(queues: &mut Self::Queues) -> &mut VecDeque<Self::Item>;
    /// Input `K`'s place in a set being filled.
    #[doc(hidden)]
    fn slot(partial: &mut Self::Partial) -> &mut Option<Self::Item>;
}

mod sealed {
    /// Keeps [`Set`](super::Set) to the tuples implemented here.
    pub trait Sealed {}
}

/// Implements [`Set`] for each tuple arity given, and [`Slot`] for each of its positions.
macro_rules! sets {
    ($( ($n:literal: $($T:ident $k:tt),+) )+) => {$(
        impl<$($T),+> sealed::Sealed for ($($T,)+) {}

        impl<$($T),+> Set for ($($T,)+) {
            const INPUTS: usize = $n;
            type Queues = ($(VecDeque<$T>,)+);
            type Partial = ($(Option<$T>,)+);

            fn pop_front(queues: &mut Self::Queues, input: usize) -> bool {
                match input {
                    $($k => queues.$k.pop_front().is_some(),)+
                    _ => false,
                }
            }

            fn pop_fronts(queues: &mut Self::Queues) -> Option<Self> {
                if $(queues.$k.is_empty())||+ {
                    return None;
                }
                Some(($(queues.$k.pop_front()?,)+))
            }

            fn complete(partial: &mut Self::Partial) -> Option<Self> {
                if $(partial.$k.is_none())||+ {
                    return None;
                }
                Some(($(partial.$k.take()?,)+))
            }

            fn count_present(partial: &Self::Partial, counts: &mut [u64; MAX_INPUTS]) {
                $(counts[$k] += u64::from(partial.$k.is_some());)+
            }
        }

        slots!([$($T),+] $($T $k),+);
    )+};
}

/// The [`Slot`]s of one tuple type: `[all its type parameters]` then each position's.
macro_rules! slots {
    ($all:tt $($T:ident $k:tt),+) => {$(
        slot!($all $T $k);
    )+};
}

macro_rules! slot {
    ([$($All:ident),+] $T:ident $k:tt) => {
        impl<$($All),+> Slot<$k> for ($($All,)+) {
            type Item = $T;

            fn queue(queues: &mut Self::Queues) -> &mut VecDeque<$T> {
                &mut queues.$k
            }

            fn slot(partial: &mut Self::Partial) -> &mut Option<$T> {
                &mut partial.$k
            }
        }
    };
}

sets! {
    (2: A 0, B 1)
    (3: A 0, B 1, C 2)
    (4: A 0, B 1, C 2, D 3)
    (5: A 0, B 1, C 2, D 3, E 4)
    (6: A 0, B 1, C 2, D 3, E 4, F 5)
    (7: A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (8: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (9: A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
}
