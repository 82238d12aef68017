//! The texts of errors, refusals and frame listings, word for word as tf2 formats them: each
//! expectation is built from the format string in tf2/src/buffer_core.cpp or
//! tf2/src/cache.cpp (geometry2, jazzy) named beside it.

mod common;

use common::{from_sec, rotate, transform};
use tacto::Time;
use tacto_tf::{Buffer, BufferLimits, ErrorKind, RejectReason};

fn set(buffer: &Buffer, parent: &str, child: &str, stamp: Time, is_static: bool) {
    buffer
        .set_transform(
            &transform(parent, child, stamp, 0.0, 0.0, 0.0),
            "unittest",
            is_static,
        )
        .unwrap();
}

// cache.cpp createExtrapolationException1/2/3, and walkToTopParent's ", when looking up
// transform from frame [...] to frame [...]".
#[test]
fn extrapolation_errors_name_both_times_and_both_frames() {
    let buffer = Buffer::new();
    set(&buffer, "bar", "foo", from_sec(1.0), false);
    let err = buffer
        .lookup_transform("bar", "foo", from_sec(0.5))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoDataForExtrapolation);
    assert_eq!(
        err.message(),
        "Lookup would require extrapolation at time 0.500000, but only time 1.000000 is in the \
         buffer, when looking up transform from frame [foo] to frame [bar]"
    );
    set(&buffer, "bar", "foo", from_sec(2.0), false);
    let err = buffer
        .lookup_transform("foo", "bar", from_sec(0.5))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BackwardExtrapolation);
    assert_eq!(
        err.message(),
        "Lookup would require extrapolation into the past.  Requested time 0.500000 but the \
         earliest data is at time 1.000000, when looking up transform from frame [bar] to frame \
         [foo]"
    );
    let err = buffer
        .lookup_transform("bar", "foo", from_sec(2.25))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::ForwardExtrapolation);
    assert_eq!(
        err.message(),
        "Lookup would require extrapolation into the future.  Requested time 2.250000 but the \
         latest data is at time 2.000000, when looking up transform from frame [foo] to frame \
         [bar]"
    );
}

// cache.cpp findClosest on an empty list: the code, and no text of its own.
#[test]
fn a_cleared_link_is_no_data_with_only_the_frames_in_the_text() {
    let buffer = Buffer::new();
    set(&buffer, "bar", "foo", from_sec(1.0), false);
    buffer.clear();
    let err = buffer
        .lookup_transform("bar", "foo", from_sec(1.0))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NoDataForExtrapolation);
    assert_eq!(
        err.message(),
        ", when looking up transform from frame [foo] to frame [bar]"
    );
}

// buffer_core.cpp createConnectivityErrorString: the target first, and no space after
// "tree.".
#[test]
fn unconnected_trees_are_a_connectivity_error() {
    let buffer = Buffer::new();
    set(&buffer, "b", "a", from_sec(1.0), false);
    set(&buffer, "y", "x", from_sec(1.0), false);
    let expected = "Could not find a connection between 'x' and 'a' because they are not part \
                    of the same tree.Tf has two or more unconnected trees.";
    for time in [from_sec(1.0), Time::ZERO] {
        let err = buffer.lookup_transform("x", "a", time).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Connectivity);
        assert_eq!(err.message(), expected);
    }
}

// buffer_core.cpp walkToTopParent and getLatestCommonTime at MAX_GRAPH_DEPTH, with
// allFramesAsStringNoLock.
#[test]
fn a_loop_in_the_tree_is_a_lookup_error_listing_the_frames() {
    let buffer = Buffer::new();
    set(&buffer, "b", "a", from_sec(1.0), false);
    set(&buffer, "a", "b", from_sec(1.0), false);
    set(&buffer, "d", "c", from_sec(1.0), false);
    let expected = "The tf tree is invalid because it contains a loop.\n\
                    Frame a exists with parent b.\n\
                    Frame b exists with parent a.\n\
                    Frame c exists with parent d.\n\n";
    for time in [from_sec(1.0), Time::ZERO] {
        let err = buffer.lookup_transform("c", "a", time).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Lookup);
        assert_eq!(err.message(), expected);
    }
}

// buffer_core.cpp validateFrameId, both forms.
#[test]
fn bad_frame_ids_are_named_with_the_argument_they_came_in() {
    let buffer = Buffer::new();
    set(&buffer, "bar", "foo", from_sec(1.0), false);
    let err = buffer
        .lookup_transform("bar", "/foo", Time::ZERO)
        .unwrap_err();
    assert_eq!(
        err.message(),
        "Invalid argument \"/foo\" passed to lookupTransform argument source_frame - in tf2 \
         frame_ids cannot start with a '/'"
    );
    let err = buffer
        .lookup_transform_full("bar", Time::ZERO, "foo", Time::ZERO, "nope")
        .unwrap_err();
    assert_eq!(
        err.message(),
        "\"nope\" passed to lookupTransform argument fixed_frame does not exist. "
    );
    let err = buffer.can_transform("bar", "nope", Time::ZERO).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Lookup);
    assert_eq!(
        err.message(),
        "Invalid frame ID \"nope\" passed to canTransform argument source_frame - frame does not \
         exist"
    );
    let err = buffer.can_transform("", "foo", Time::ZERO).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        err.message(),
        "Invalid frame ID \"\" passed to canTransform argument target_frame - in tf2 frame_ids \
         cannot be empty"
    );
}

// buffer_core.cpp setTransformImpl's RCUTILS_LOG_ERROR and RCUTILS_LOG_WARN texts.
#[test]
fn refused_transforms_carry_tf2s_log_text() {
    let buffer = Buffer::new();
    let message = |parent: &str, child: &str, x: f64, q: [f64; 4]| {
        let t = rotate(transform(parent, child, from_sec(20.0), x, 0.0, 0.0), q);
        buffer.set_transform(&t, "auth", false).unwrap_err()
    };
    let unit = [0.0, 0.0, 0.0, 1.0];
    let err = message("/base", "base", 0.0, unit);
    assert_eq!(
        err.message(),
        "TF_SELF_TRANSFORM: Ignoring transform from authority \"auth\" with frame_id and  \
         child_frame_id \"base\" because they are the same"
    );
    let err = message("base", "/", 0.0, unit);
    assert_eq!(
        err.message(),
        "TF_NO_CHILD_FRAME_ID: Ignoring transform from authority \"auth\" because \
         child_frame_id not set "
    );
    let err = message("", "arm", 0.0, unit);
    assert_eq!(
        err.message(),
        "TF_NO_FRAME_ID: Ignoring transform with child_frame_id \"arm\"  from authority \
         \"auth\" because frame_id not set"
    );
    let err = message("base", "arm", f64::NAN, unit);
    assert_eq!(err.reason(), RejectReason::NanInput);
    assert_eq!(
        err.message(),
        "TF_NAN_INPUT: Ignoring transform for child_frame_id \"arm\" from authority \"auth\" \
         because of a nan value in the transform (nan 0.000000 0.000000) (0.000000 0.000000 \
         0.000000 1.000000)"
    );
    let err = message("base", "arm", 0.0, [0.0, 0.0, 0.0, 1.1]);
    assert_eq!(
        err.message(),
        "TF_DENORMALIZED_QUATERNION: Ignoring transform for child_frame_id \"arm\" from \
         authority \"auth\" because of an invalid quaternion in the transform (0.000000 \
         0.000000 0.000000 1.100000)"
    );

    set(&buffer, "base", "arm", from_sec(20.0), false);
    let old = transform("base", "arm", from_sec(9.5), 0.0, 0.0, 0.0);
    let err = buffer.set_transform(&old, "auth", false).unwrap_err();
    assert_eq!(err.reason(), RejectReason::OldData);
    assert_eq!(
        err.message(),
        "TF_OLD_DATA ignoring data from the past for frame arm at time 9.500000 according to \
         authority auth\nPossible reasons are listed at \
         http://wiki.ros.org/tf/Errors%20explained"
    );
}

#[test]
fn a_transform_past_the_frame_bound_says_which_bound() {
    let buffer = Buffer::with_limits(BufferLimits {
        max_frames: 2,
        ..BufferLimits::default()
    });
    set(&buffer, "base", "arm", from_sec(1.0), false);
    let t = transform("arm", "hand", from_sec(1.0), 0.0, 0.0, 0.0);
    let err = buffer.set_transform(&t, "auth", false).unwrap_err();
    assert_eq!(err.reason(), RejectReason::FrameLimit);
    assert_eq!(
        err.message(),
        "TF_FRAME_LIMIT: Ignoring transform for child_frame_id \"hand\" from authority \"auth\" \
         because the buffer already holds its limit of 2 frames"
    );
}

// buffer_core.cpp allFramesAsString: frames with a cache, their parent now.
#[test]
fn the_frame_list_has_a_line_per_child() {
    let buffer = Buffer::new();
    set(&buffer, "map", "odom", from_sec(1.0), false);
    set(&buffer, "odom", "base", from_sec(1.0), false);
    set(&buffer, "base", "laser", Time::ZERO, true);
    assert_eq!(
        buffer.all_frames_as_string(),
        "Frame odom exists with parent map.\n\
         Frame base exists with parent odom.\n\
         Frame laser exists with parent base.\n"
    );
    // An emptied cache has no parent.
    buffer.clear();
    assert_eq!(
        buffer.all_frames_as_string(),
        "Frame odom exists with parent NO_PARENT.\n\
         Frame base exists with parent NO_PARENT.\n\
         Frame laser exists with parent base.\n"
    );
}

// buffer_core.cpp allFramesAsYAML: three decimals, rate over at least 100 µs, the delay only
// with a current time.
#[test]
fn the_yaml_has_tf2s_fields_and_precision() {
    let buffer = Buffer::new();
    assert_eq!(buffer.all_frames_as_yaml(Time::ZERO), "[]");
    set(&buffer, "odom", "base", from_sec(1.0), false);
    set(&buffer, "odom", "base", from_sec(2.0), false);
    set(&buffer, "base", "laser", Time::ZERO, true);
    assert_eq!(
        buffer.all_frames_as_yaml(from_sec(2.5)),
        "base: \n  parent: 'odom'\n  broadcaster: 'unittest'\n  rate: 2.000\n  \
         most_recent_transform: 2.000000\n  oldest_transform: 1.000000\n  \
         transform_delay: 0.500\n  buffer_length: 1.000\n\
         laser: \n  parent: 'base'\n  broadcaster: 'unittest'\n  rate: 10000.000\n  \
         most_recent_transform: 0.000000\n  oldest_transform: 0.000000\n  \
         transform_delay: 2.500\n  buffer_length: 0.000\n"
    );
    assert!(
        !buffer
            .all_frames_as_yaml(Time::ZERO)
            .contains("transform_delay")
    );
}
