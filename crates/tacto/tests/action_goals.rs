//! Goals' state machine and an action server's goal bookkeeping against rcl_action's tests.

use std::time::Duration;

use tacto::Time;
use tacto::action::{
    AcceptError, CancelCode, GoalEvent, GoalId, GoalInfo, GoalStatus, Goals, UpdateError,
};

use GoalEvent as E;
use GoalStatus as S;

// From rcl_action test/rcl_action/test_goal_state_machine.cpp, `test_valid_transitions`.
#[test]
fn each_valid_transition_reaches_its_state() {
    for (from, event, to) in [
        (S::Accepted, E::Execute, S::Executing),
        (S::Accepted, E::CancelGoal, S::Canceling),
        (S::Executing, E::CancelGoal, S::Canceling),
        (S::Executing, E::Succeed, S::Succeeded),
        (S::Executing, E::Abort, S::Aborted),
        (S::Canceling, E::Canceled, S::Canceled),
        (S::Canceling, E::Abort, S::Aborted),
    ] {
        assert_eq!(from.on(event), Some(to), "{from:?} on {event:?}");
    }
}

// From rcl_action test/rcl_action/test_goal_state_machine.cpp, `test_invalid_transitions`.
#[test]
fn each_invalid_transition_is_refused() {
    for (from, event) in [
        (S::Accepted, E::Succeed),
        (S::Accepted, E::Abort),
        (S::Accepted, E::Canceled),
        (S::Executing, E::Execute),
        (S::Executing, E::Canceled),
        (S::Canceling, E::Execute),
        (S::Canceling, E::CancelGoal),
    ] {
        assert_eq!(from.on(event), None, "{from:?} on {event:?}");
    }
    for ended in [S::Succeeded, S::Aborted, S::Canceled] {
        for event in [E::Execute, E::CancelGoal, E::Succeed, E::Abort, E::Canceled] {
            assert_eq!(ended.on(event), None, "{ended:?} on {event:?}");
        }
    }
}

/// rcl_action test/rcl_action/test_goal_handle.cpp's sequences: (event, state reached or
/// `None` for refused, active, cancelable), from accepted.
type Sequence = &'static [(GoalEvent, Option<GoalStatus>, bool, bool)];

fn walk(sequence: Sequence) {
    let mut goals = Goals::new(4, Goals::DEFAULT_RESULT_TIMEOUT);
    let id = GoalId::ZERO;
    goals.accept(id, Time::ZERO).unwrap();
    assert_eq!(goals.status(&id), Some(S::Accepted));
    for &(event, reached, active, cancelable) in sequence {
        let before = goals.status(&id).unwrap();
        match reached {
            Some(state) => {
                assert_eq!(goals.update(&id, event), Ok(state), "{sequence:?}");
                assert_eq!(state.is_active(), active, "{sequence:?}");
                assert_eq!(state.is_cancelable(), cancelable, "{sequence:?}");
            }
            None => {
                assert_eq!(
                    goals.update(&id, event),
                    Err(UpdateError::Invalid {
                        id,
                        status: before,
                        event
                    })
                );
                assert_eq!(goals.status(&id), Some(before));
            }
        }
    }
}

// From rcl_action test/rcl_action/test_goal_handle.cpp, `valid_state_transition_sequences`.
#[test]
fn a_goal_walks_every_valid_sequence_with_rcls_active_and_cancelable_flags() {
    let sequences: [Sequence; 8] = [
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Canceled, Some(S::Canceled), false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Succeed, Some(S::Succeeded), false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Abort, Some(S::Aborted), false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::Succeed, Some(S::Succeeded), false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::Abort, Some(S::Aborted), false, false),
        ],
        &[
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Canceled, Some(S::Canceled), false, false),
        ],
        &[
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Abort, Some(S::Aborted), false, false),
        ],
        // "This is an odd case, but valid nonetheless"
        &[
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Succeed, Some(S::Succeeded), false, false),
        ],
    ];
    for sequence in sequences {
        walk(sequence);
    }
}

// From rcl_action test/rcl_action/test_goal_handle.cpp, `invalid_state_transition_sequences`.
#[test]
fn a_goal_refuses_every_invalid_sequence_and_keeps_its_state() {
    let sequences: [Sequence; 6] = [
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::Execute, None, false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::CancelGoal, Some(S::Canceling), true, false),
            (E::CancelGoal, None, false, false),
        ],
        &[
            (E::Execute, Some(S::Executing), true, true),
            (E::Execute, None, false, false),
        ],
        &[(E::Canceled, None, false, false)],
        &[(E::Succeed, None, false, false)],
        &[(E::Abort, None, false, false)],
    ];
    for sequence in sequences {
        walk(sequence);
    }
}

/// rcl_action test/rcl_action/test_action_server.cpp's `init_test_uuid0`: bytes 0..16.
fn uuid0() -> GoalId {
    GoalId::from_bytes(std::array::from_fn(|i| i as u8))
}

/// `init_test_uuid1`: bytes 15 down to 0.
fn uuid1() -> GoalId {
    GoalId::from_bytes(std::array::from_fn(|i| 15 - i as u8))
}

/// The cancel-policy fixture's goal `i`: bytes `i + j`.
fn uuid_from(i: usize) -> GoalId {
    GoalId::from_bytes(std::array::from_fn(|j| (i + j) as u8))
}

fn secs(s: i64) -> Time {
    Time::from_nanos(s * 1_000_000_000)
}

// From rcl_action test/rcl_action/test_action_server.cpp, `test_action_accept_new_goal`.
#[test]
fn a_goal_is_accepted_once_and_a_second_with_another_id() {
    let mut goals = Goals::new(16, Goals::DEFAULT_RESULT_TIMEOUT);
    let info = goals.accept(uuid0(), secs(1)).unwrap();
    assert_eq!(info.id, uuid0());
    assert_eq!(goals.len(), 1);
    assert_eq!(
        goals.accept(uuid0(), secs(2)),
        Err(AcceptError::Exists(uuid0()))
    );
    assert_eq!(goals.accept(uuid1(), secs(2)).unwrap().id, uuid1());
    assert_eq!(goals.len(), 2);
}

// From rcl_action test/rcl_action/test_action_server.cpp, `test_action_clear_expired_goals`.
#[test]
fn an_ended_goal_expires_after_the_result_timeout_and_an_active_one_never() {
    let mut goals = Goals::new(16, Goals::DEFAULT_RESULT_TIMEOUT);
    assert!(goals.expire(secs(1)).is_empty());
    goals.accept(uuid1(), secs(1)).unwrap();
    goals.update(&uuid1(), E::Execute).unwrap();
    goals.update(&uuid1(), E::Abort).unwrap();
    let expired = goals.expire(secs(99999));
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].id, uuid1());
    assert!(goals.is_empty());

    // Not in the peer's test, but what its expiry loop does: active goals are skipped.
    goals.accept(uuid0(), secs(1)).unwrap();
    assert!(goals.expire(secs(99999)).is_empty());
    assert_eq!(goals.status(&uuid0()), Some(S::Accepted));
}

// rcl_action src/rcl_action/action_server.c, `rcl_action_expire_goals`: expired when more than
// the timeout passed since the goal's stamp (its acceptance), not at exactly the timeout; and
// `_recalculate_expire_timer`: the timer's period is the least time left.
#[test]
fn a_result_is_kept_for_the_timeout_from_acceptance_and_the_next_expiry_says_when() {
    let mut goals = Goals::new(16, Duration::from_secs(10));
    goals.accept(uuid0(), secs(1)).unwrap();
    goals.accept(uuid1(), secs(3)).unwrap();
    assert_eq!(goals.next_expiry(secs(4)), None);
    for id in [uuid0(), uuid1()] {
        goals.update(&id, E::Execute).unwrap();
        goals.update(&id, E::Succeed).unwrap();
    }
    assert_eq!(goals.next_expiry(secs(4)), Some(Duration::from_secs(7)));
    assert!(goals.expire(secs(11)).is_empty());
    assert_eq!(goals.expire(Time::from_nanos(11_000_000_001)).len(), 1);
    assert_eq!(goals.next_expiry(secs(12)), Some(Duration::from_secs(1)));
    // Time went backwards far: the timer fires at once, as rcl clamps it.
    assert_eq!(goals.next_expiry(secs(50)), Some(Duration::ZERO));
}

// From rcl_action test/rcl_action/test_action_server.cpp, `test_action_process_cancel_request`:
// a zero request means "cancel all goals", which succeeds if there is nothing to cancel.
#[test]
fn cancelling_all_with_no_goals_reaches_none_and_succeeds() {
    let goals = Goals::new(16, Goals::DEFAULT_RESULT_TIMEOUT);
    let reach = goals.cancel_reach(&GoalInfo {
        id: GoalId::ZERO,
        stamp: Time::ZERO,
    });
    assert_eq!(reach.code, CancelCode::None);
    assert!(reach.goals.is_empty());
}

// From rcl_action test/rcl_action/test_action_server.cpp, `test_action_server_get_goal_status_array`.
#[test]
fn the_status_list_holds_every_goal_in_the_order_accepted() {
    let mut goals = Goals::new(16, Goals::DEFAULT_RESULT_TIMEOUT);
    assert_eq!(goals.statuses().count(), 0);
    goals.accept(uuid0(), secs(1)).unwrap();
    let list: Vec<_> = goals.statuses().collect();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].0.id, uuid0());
    for i in 1..10 {
        goals.accept(uuid_from(i), secs(1)).unwrap();
    }
    let ids: Vec<_> = goals.statuses().map(|(info, _)| info.id).collect();
    assert_eq!(ids, (0..10).map(uuid_from).collect::<Vec<_>>());
}

/// rcl_action test/rcl_action/test_action_server.cpp's `TestActionServerCancelPolicy`: ten
/// goals, `uuid_from(i)`, accepted 250 ms apart.
fn ten_goals() -> (Goals, Vec<GoalInfo>) {
    let mut goals = Goals::new(16, Goals::DEFAULT_RESULT_TIMEOUT);
    let infos = (0..10)
        .map(|i| {
            let stamp = Time::from_nanos(1_000_000_000 + i as i64 * 250_000_000);
            goals.accept(uuid_from(i), stamp).unwrap()
        })
        .collect();
    (goals, infos)
}

// From `test_action_process_cancel_request_all_goals`.
#[test]
fn a_zero_request_reaches_every_goal_in_order() {
    let (goals, _) = ten_goals();
    let reach = goals.cancel_reach(&GoalInfo {
        id: GoalId::ZERO,
        stamp: Time::ZERO,
    });
    assert_eq!(reach.code, CancelCode::None);
    let ids: Vec<_> = reach.goals.iter().map(|g| g.id).collect();
    assert_eq!(ids, (0..10).map(uuid_from).collect::<Vec<_>>());
}

// From `test_action_process_cancel_request_single_goal`.
#[test]
fn an_id_reaches_its_goal_and_says_unknown_or_terminated_otherwise() {
    let (mut goals, infos) = ten_goals();
    let one = goals.cancel_reach(&GoalInfo {
        id: uuid0(),
        stamp: Time::ZERO,
    });
    assert_eq!(one.code, CancelCode::None);
    assert_eq!(one.goals.len(), 1);
    assert_eq!(one.goals[0].id, uuid0());

    let unknown = goals.cancel_reach(&GoalInfo {
        id: uuid1(),
        stamp: Time::ZERO,
    });
    assert_eq!(unknown.code, CancelCode::UnknownGoalId);
    assert!(unknown.goals.is_empty());

    goals.update(&infos[3].id, E::Execute).unwrap();
    goals.update(&infos[3].id, E::Succeed).unwrap();
    let ended = goals.cancel_reach(&GoalInfo {
        id: infos[3].id,
        stamp: Time::ZERO,
    });
    assert_eq!(ended.code, CancelCode::GoalTerminated);
    assert!(ended.goals.is_empty());
}

// From `test_action_process_cancel_request_by_time`.
#[test]
fn a_stamp_reaches_the_goals_accepted_at_or_before_it() {
    let (goals, infos) = ten_goals();
    let reach = goals.cancel_reach(&infos[7]);
    assert_eq!(reach.code, CancelCode::None);
    let ids: Vec<_> = reach.goals.iter().map(|g| g.id).collect();
    assert_eq!(ids, (0..=7).map(uuid_from).collect::<Vec<_>>());
}

// From `test_action_process_cancel_request_by_time_and_id`.
#[test]
fn a_stamp_and_an_id_reach_the_goals_before_it_and_that_goal() {
    let (goals, infos) = ten_goals();
    // The peer builds the id as bytes `j + 9`: the fixture's goal 9.
    let request = GoalInfo {
        id: uuid_from(9),
        stamp: infos[2].stamp,
    };
    let reach = goals.cancel_reach(&request);
    assert_eq!(reach.code, CancelCode::None);
    let ids: Vec<_> = reach.goals.iter().map(|g| g.id).collect();
    assert_eq!(
        ids,
        [uuid_from(0), uuid_from(1), uuid_from(2), uuid_from(9)]
    );
}

// The bound, tacto's own: rcl_action grows without one.
#[test]
fn past_capacity_the_oldest_ended_goal_makes_room_and_active_goals_never_do() {
    let mut goals = Goals::new(2, Goals::DEFAULT_RESULT_TIMEOUT);
    goals.accept(uuid_from(0), secs(1)).unwrap();
    goals.accept(uuid_from(1), secs(2)).unwrap();
    assert_eq!(
        goals.accept(uuid_from(2), secs(3)),
        Err(AcceptError::Full { capacity: 2 })
    );
    goals.update(&uuid_from(1), E::CancelGoal).unwrap();
    goals.update(&uuid_from(1), E::Canceled).unwrap();
    goals.accept(uuid_from(2), secs(3)).unwrap();
    assert_eq!(goals.evicted(), 1);
    assert_eq!(goals.status(&uuid_from(1)), None);
    assert_eq!(goals.status(&uuid_from(0)), Some(S::Accepted));
    assert_eq!(
        goals.update(&uuid_from(1), E::Execute),
        Err(UpdateError::Unknown(uuid_from(1)))
    );
}

// action_msgs/msg/GoalStatus and action_msgs/srv/CancelGoal's constants.
#[test]
fn ids_are_action_msgs_constants() {
    let ids: Vec<_> = [
        S::Unknown,
        S::Accepted,
        S::Executing,
        S::Canceling,
        S::Succeeded,
        S::Canceled,
        S::Aborted,
    ]
    .iter()
    .map(|s| s.id())
    .collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5, 6]);
    for id in 0..7 {
        assert_eq!(S::from_id(id).map(S::id), Some(id));
    }
    assert_eq!(S::from_id(7), None);
    let codes: Vec<_> = [
        CancelCode::None,
        CancelCode::Rejected,
        CancelCode::UnknownGoalId,
        CancelCode::GoalTerminated,
    ]
    .iter()
    .map(|c| c.id())
    .collect();
    assert_eq!(codes, [0, 1, 2, 3]);
}
