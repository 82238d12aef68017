//! `tacto tf echo` and `tacto tf frames`: tf2_ros's `tf2_echo` and tf2_tools' `view_frames`,
//! on a [`Listener`] of any ROS 2 graph's `/tf` and `/tf_static`.
//!
//! - [`echo`] waits until the transform can be looked up, then prints it at a rate in
//!   `tf2_echo`'s words and numbers ([`echo_text`]): the stamp, the translation, the rotation
//!   as a quaternion and as roll, pitch and yaw (tf2's `getEulerYPR`), in radians and
//!   degrees, and the homogeneous matrix.
//! - [`frames`] listens for a while and describes the tree: as tf2's `allFramesAsYAML`
//!   (what `view_frames` asks the buffer for, [`FramesReport::yaml`]), as the Graphviz text
//!   `view_frames` writes, character for character ([`frames_dot`]), and as an SVG picture
//!   drawn here, with no Graphviz needed ([`frames_svg`]).

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::{Duration, Instant, SystemTime};

use tacto::Time;
use tacto_msgs::geometry_msgs::msg::TransformStamped;
use tacto_tf::{FrameInfo, Listener};

/// Why a tf command failed.
#[derive(Debug, thiserror::Error)]
pub enum TfToolError {
    /// The rate is not a positive number of prints per second.
    #[error("the rate must be a positive number of echoes per second, not {0}")]
    Rate(String),
    /// The listener could not start.
    #[error("listening to /tf: {0}")]
    Listener(String),
    /// Writing the output failed.
    #[error("writing the output: {0}")]
    Io(#[from] io::Error),
}

/// A listener of `/tf` and `/tf_static` on the graph `participant` joins, in a context of
/// its own on DDS; keep the context while listening (dropping it shuts its transport down).
pub fn graph_listener(
    participant: tacto_dds::Participant,
) -> Result<(tacto::Context, Listener), TfToolError> {
    let ctx = tacto::Context::builder()
        .transport(tacto_dds::DdsTransport::new(participant))
        .create();
    let listener = Listener::of(&ctx).map_err(|e| TfToolError::Listener(e.to_string()))?;
    Ok((ctx, listener))
}

/// How [`echo`] runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EchoOptions {
    /// Prints per second (tf2_echo's `echo_rate`, default 1).
    pub rate: f64,
    /// Stop after this many prints (tf2_echo runs until interrupted).
    pub count: Option<u64>,
}

impl Default for EchoOptions {
    fn default() -> Self {
        EchoOptions {
            rate: 1.0,
            count: None,
        }
    }
}

/// Reads an echo rate as tf2_echo does: a number, all of the argument, here also positive
/// and finite (tf2_echo's `rclcpp::Rate` would divide by it).
///
/// # Examples
/// ```
/// use tacto_graph::tf::parse_rate;
///
/// assert_eq!(parse_rate("10").unwrap(), 10.0);
/// assert!(parse_rate("1.0foo").is_err());
/// assert!(parse_rate("0").is_err());
/// ```
pub fn parse_rate(text: &str) -> Result<f64, TfToolError> {
    match text.trim().parse::<f64>() {
        Ok(rate) if rate.is_finite() && rate > 0.0 => Ok(rate),
        _ => Err(TfToolError::Rate(format!("{text:?}"))),
    }
}

/// The 3×3 rotation matrix of a quaternion, as tf2's `Matrix3x3::setRotation` makes it
/// (scaled by its squared length, so a quaternion off unit length gives tf2's numbers).
fn rotation_matrix(x: f64, y: f64, z: f64, w: f64) -> [[f64; 3]; 3] {
    let d = x * x + y * y + z * z + w * w;
    let s = 2.0 / d;
    let (xs, ys, zs) = (x * s, y * s, z * s);
    let (wx, wy, wz) = (w * xs, w * ys, w * zs);
    let (xx, xy, xz) = (x * xs, x * ys, x * zs);
    let (yy, yz, zz) = (y * ys, y * zs, z * zs);
    [
        [1.0 - (yy + zz), xy - wz, xz + wy],
        [xy + wz, 1.0 - (xx + zz), yz - wx],
        [xz - wy, yz + wx, 1.0 - (xx + yy)],
    ]
}

/// tf2's `Matrix3x3::getEulerYPR` (first solution): `(yaw, pitch, roll)`.
fn euler_ypr(m: &[[f64; 3]; 3]) -> (f64, f64, f64) {
    use std::f64::consts::FRAC_PI_2;
    if m[2][0].abs() >= 1.0 {
        // Gimbal lock: yaw 0, roll from the difference of angles.
        let delta = m[2][1].atan2(m[2][2]);
        let pitch = if m[2][0] < 0.0 { FRAC_PI_2 } else { -FRAC_PI_2 };
        (0.0, pitch, delta)
    } else {
        let pitch = -m[2][0].asin();
        let c = pitch.cos();
        let roll = (m[2][1] / c).atan2(m[2][2] / c);
        let yaw = (m[1][0] / c).atan2(m[0][0] / c);
        (yaw, pitch, roll)
    }
}

/// What tf2_echo prints for one transform: `At time`, the translation, the rotation as a
/// quaternion and in roll, pitch, yaw (radians, then degrees), and the matrix, numbers
/// fixed to three decimals as its `std::cout` prints them.
///
/// # Examples
/// ```
/// use tacto_msgs::geometry_msgs::msg::TransformStamped;
/// use tacto_graph::tf::echo_text;
///
/// let mut t = TransformStamped::default();
/// t.header.stamp.sec = 12;
/// t.header.stamp.nanosec = 5_000;
/// t.transform.translation.x = 1.0;
/// let text = echo_text(&t);
/// assert!(text.starts_with("At time 12.5000\n- Translation: [1.000, 0.000, 0.000]\n"));
/// ```
pub fn echo_text(t: &TransformStamped) -> String {
    let v = &t.transform.translation;
    let q = &t.transform.rotation;
    let m = rotation_matrix(q.x, q.y, q.z, q.w);
    let (yaw, pitch, roll) = euler_ypr(&m);
    let deg = 180.0 / std::f64::consts::PI;
    let mut out = String::new();
    // tf2_echo prints the two integers as they are: nanoseconds unpadded.
    let _ = writeln!(
        out,
        "At time {}.{}",
        t.header.stamp.sec, t.header.stamp.nanosec
    );
    let _ = writeln!(out, "- Translation: [{:.3}, {:.3}, {:.3}]", v.x, v.y, v.z);
    let _ = writeln!(
        out,
        "- Rotation: in Quaternion [{:.3}, {:.3}, {:.3}, {:.3}]",
        q.x, q.y, q.z, q.w
    );
    let _ = writeln!(
        out,
        "- Rotation: in RPY (radian) [{roll:.3}, {pitch:.3}, {yaw:.3}]"
    );
    let _ = writeln!(
        out,
        "- Rotation: in RPY (degree) [{:.3}, {:.3}, {:.3}]",
        roll * deg,
        pitch * deg,
        yaw * deg
    );
    out.push_str("- Matrix:\n");
    let xyz = [v.x, v.y, v.z];
    for (row, x) in m.iter().zip(xyz) {
        for value in row {
            let _ = write!(out, " {value:>6.3}");
        }
        let _ = writeln!(out, " {x:>6.3}");
    }
    let _ = writeln!(out, " {:>6.3} {:>6.3} {:>6.3} {:>6.3}", 0.0, 0.0, 0.0, 1.0);
    out
}

/// Seconds since the epoch on the system clock, as `clock->now().seconds()`.
fn now_seconds() -> f64 {
    (SystemTime::now().duration_since(SystemTime::UNIX_EPOCH))
        .map_or(0.0, |since| since.as_secs_f64())
}

/// Sleeps until `deadline`, a tenth of a second at a time so that `stop` is heard; false if
/// stopped.
fn sleep_until(deadline: Instant, stop: &dyn Fn() -> bool) -> bool {
    loop {
        if stop() {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(100)));
    }
}

/// tf2_echo: waits until `listener` can transform data in `target` into `source` (at the
/// latest common time), logging on `log` once a second why not, then prints the transform
/// to `out` at `options.rate` ([`echo_text`]), or tf2_echo's failure text and the frames when
/// a lookup fails. Runs until `stop` returns true, or `options.count` prints.
///
/// Give `log` an unlocked handle (`std::io::stderr()`, not its `lock()`): the listener's
/// thread may log on stderr (a malformed sample), and waits for the lock meanwhile.
///
/// As tf2_echo's, the transform printed is `lookup_transform(source, target, latest)`: it
/// takes data from the target frame into the source frame.
pub fn echo(
    listener: &Listener,
    source: &str,
    target: &str,
    options: EchoOptions,
    out: &mut dyn Write,
    log: &mut dyn Write,
    stop: &dyn Fn() -> bool,
) -> Result<(), TfToolError> {
    let rate = options.rate;
    if !(rate.is_finite() && rate > 0.0) {
        return Err(TfToolError::Rate(rate.to_string()));
    }
    let period = Duration::from_secs_f64(1.0 / rate);
    let mut next = Instant::now();
    let mut logged: Option<Instant> = None;
    while let Err(why) = listener.can_transform(source, target, Time::ZERO) {
        // RCLCPP_INFO_THROTTLE: at most once a second.
        if logged.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
            writeln!(
                log,
                "[INFO] [{:.9}] [tf2_echo]: Waiting for transform {source} ->  {target}: {}",
                now_seconds(),
                why.message()
            )?;
            logged = Some(Instant::now());
        }
        next += period;
        if !sleep_until(next, stop) {
            return Ok(());
        }
    }
    let mut printed = 0;
    while options.count.is_none_or(|count| printed < count) {
        match listener.lookup_transform(source, target, Time::ZERO) {
            Ok(t) => out.write_all(echo_text(&t).as_bytes())?,
            Err(error) => {
                writeln!(out, "Failure at {:.3}", now_seconds())?;
                writeln!(out, "Exception thrown:{}", error.message())?;
                writeln!(out, "The current list of frames is:")?;
                writeln!(out, "{}", listener.buffer().all_frames_as_string())?;
            }
        }
        out.flush()?;
        printed += 1;
        next += period;
        if options.count == Some(printed) || !sleep_until(next, stop) {
            break;
        }
    }
    Ok(())
}

/// What [`frames`] heard: each frame with data, and when.
#[derive(Debug, Clone, PartialEq)]
pub struct FramesReport {
    /// Each frame with data, in the order the buffer learnt them.
    pub frames: Vec<FrameInfo>,
    /// tf2's `allFramesAsYAML` of the buffer (no current time, as tf2_ros's `tf2_frames`
    /// service gives it to view_frames).
    pub yaml: String,
    /// When the report was made, on the system clock.
    pub recorded: Time,
}

/// view_frames: listens on `listener`'s topics for `wait` (view_frames' `--wait-time`, 5 s
/// by default), or until `stop`, then describes every frame heard.
pub fn frames(listener: &Listener, wait: Duration, stop: &dyn Fn() -> bool) -> FramesReport {
    sleep_until(Instant::now() + wait, stop);
    while !listener.drain() {
        std::thread::yield_now();
    }
    let since = (SystemTime::now().duration_since(SystemTime::UNIX_EPOCH)).unwrap_or_default();
    FramesReport {
        frames: listener.buffer().frames(),
        yaml: listener.buffer().all_frames_as_yaml(Time::ZERO),
        recorded: Time::from_nanos(i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)),
    }
}

/// A float as Python's `str` prints it: the shortest text that reads back, with `.0` on a
/// whole number and an exponent below 1e-4 or from 1e16.
fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let magnitude = x.abs();
    if magnitude != 0.0 && !(1e-4..1e16).contains(&magnitude) {
        let text = format!("{x:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.abs());
    }
    let text = format!("{x}");
    match text.contains('.') {
        true => text,
        false => text + ".0",
    }
}

/// A number as view_frames prints it: written into the YAML with `decimals` decimals, read
/// back by PyYAML, printed by Python's `str`.
fn as_view_frames(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    py_float(text.parse().unwrap_or(x))
}

fn seconds(t: Time) -> f64 {
    let nanos = t.as_nanos();
    let nsec = nanos % 1_000_000_000;
    ((nanos - nsec) / 1_000_000_000) as f64 + 1e-9 * nsec as f64
}

/// The Graphviz text view_frames writes (`generate_dot`), character for character.
///
/// # Examples
/// ```
/// use tacto::Time;
/// use tacto_graph::tf::frames_dot;
///
/// assert_eq!(frames_dot(&[], Time::ZERO), "digraph G { \"No tf data received\" }");
/// ```
pub fn frames_dot(frames: &[FrameInfo], recorded: Time) -> String {
    if frames.is_empty() {
        return "digraph G { \"No tf data received\" }".into();
    }
    let mut dot = String::from("digraph G {\n");
    let mut root = "";
    for f in frames {
        let _ = writeln!(
            dot,
            "\"{}\" -> \"{}\"[label=\" Broadcaster: {}\\nAverage rate: {}\\nBuffer length: {}\\n\
             Most recent transform: {}\\nOldest transform: {}\\n\"];",
            f.parent,
            f.name,
            f.authority,
            as_view_frames(f.rate(), 3),
            as_view_frames(f.buffer_length(), 3),
            as_view_frames(seconds(f.most_recent), 6),
            as_view_frames(seconds(f.oldest), 6),
        );
        if !frames.iter().any(|other| other.name == f.parent) {
            root = &f.parent;
        }
    }
    dot.push_str("edge [style=invis];\n");
    dot.push_str(
        " subgraph cluster_legend { style=bold; color=black; label =\"view_frames Result\";\n",
    );
    let _ = writeln!(
        dot,
        "\"Recorded at time: {}\"[ shape=plaintext ] ;",
        py_float(seconds(recorded))
    );
    let _ = write!(dot, "}}->\"{root}\";\n}}");
    dot
}

fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Where the tree's frames go: a column per leaf, parents centred over their children, a
/// row per depth.
struct Layout {
    /// Every frame drawn: those with data and their parents, in first-seen order.
    names: Vec<String>,
    /// `(column, depth)` of each of `names`.
    at: Vec<(f64, usize)>,
    /// For each frame with data, the index of its parent and its own.
    edges: Vec<(usize, usize, usize)>,
}

fn layout(frames: &[FrameInfo]) -> Layout {
    let mut names: Vec<String> = Vec::new();
    let index = |names: &mut Vec<String>, name: &str| match names.iter().position(|n| n == name) {
        Some(i) => i,
        None => {
            names.push(name.to_owned());
            names.len() - 1
        }
    };
    let mut edges = Vec::new();
    for (k, f) in frames.iter().enumerate() {
        let parent = index(&mut names, &f.parent);
        let child = index(&mut names, &f.name);
        edges.push((parent, child, k));
    }
    let children = |i: usize| -> Vec<usize> {
        (edges.iter())
            .filter(|(p, _, _)| *p == i)
            .map(|(_, c, _)| *c)
            .collect()
    };
    let has_parent: Vec<bool> = (0..names.len())
        .map(|i| edges.iter().any(|(_, c, _)| *c == i))
        .collect();
    let mut at = vec![(0.0, 0); names.len()];
    let mut placed = vec![false; names.len()];
    let mut next_column = 0.0;
    // Depth first from each root; a frame reached twice (a loop) is drawn once. Frames on a
    // loop with no root are drawn from the first of them.
    let roots: Vec<usize> = (0..names.len()).filter(|&i| !has_parent[i]).collect();
    let starts = roots.into_iter().chain(0..names.len()).collect::<Vec<_>>();
    for start in starts {
        if placed[start] {
            continue;
        }
        // An explicit stack: (frame, depth, children visited).
        let mut stack = vec![(start, 0usize, false)];
        placed[start] = true;
        while let Some((node, depth, visited)) = stack.pop() {
            let kids: Vec<usize> = children(node);
            if !visited {
                stack.push((node, depth, true));
                for &kid in kids.iter().rev() {
                    if !placed[kid] {
                        placed[kid] = true;
                        stack.push((kid, depth + 1, false));
                    }
                }
                continue;
            }
            let below: Vec<f64> = (kids.iter())
                .filter(|&&k| at[k].1 == depth + 1)
                .map(|&k| at[k].0)
                .collect();
            let column = match (below.first(), below.last()) {
                (Some(first), Some(last)) => (first + last) / 2.0,
                _ => {
                    next_column += 1.0;
                    next_column - 1.0
                }
            };
            at[node] = (column, depth);
        }
    }
    Layout { names, at, edges }
}

/// The tree drawn as an SVG picture, from its root down: each frame an ellipse, each link
/// an arrow from parent to child labelled as view_frames labels it (broadcaster, average
/// rate, buffer length, most recent and oldest transform), and the legend with the time it
/// was recorded. Made here, with no Graphviz.
pub fn frames_svg(frames: &[FrameInfo], recorded: Time) -> String {
    // A column holds a frame and, to its right, the label of the link into it (about 250 px
    // of 11 px text).
    const COLUMN: f64 = 420.0;
    const FRAME_X: f64 = 130.0;
    const ROW: f64 = 200.0;
    const MARGIN: f64 = 40.0;
    let legend = format!("Recorded at time: {}", py_float(seconds(recorded)));
    let Layout { names, at, edges } = layout(frames);
    let columns = at.iter().map(|(c, _)| *c + 1.0).fold(1.0, f64::max);
    let rows = at.iter().map(|(_, d)| *d + 1).max().unwrap_or(0);
    let width = columns * COLUMN + 2.0 * MARGIN;
    let height = rows as f64 * ROW + 2.0 * MARGIN + 60.0;
    let centre = |i: usize| {
        let (column, depth) = at[i];
        (
            MARGIN + column * COLUMN + FRAME_X,
            MARGIN + 60.0 + depth as f64 * ROW + 20.0,
        )
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"sans-serif\">"
    );
    svg.push_str(
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" \
         markerWidth=\"8\" markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\"/>\
         </marker></defs>\n",
    );
    let _ = writeln!(
        svg,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <g class=\"legend\"><rect x=\"{MARGIN}\" y=\"10\" width=\"300\" height=\"44\" \
         fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\
         <text x=\"{}\" y=\"28\" font-size=\"13\">view_frames Result</text>\
         <text x=\"{}\" y=\"46\" font-size=\"12\">{}</text></g>",
        MARGIN + 8.0,
        MARGIN + 8.0,
        xml_escape(&legend)
    );
    if frames.is_empty() {
        let _ = writeln!(
            svg,
            "<text x=\"{MARGIN}\" y=\"{}\" font-size=\"14\">No tf data received</text>",
            MARGIN + 80.0
        );
    }
    for &(parent, child, k) in &edges {
        let f = &frames[k];
        let ((x1, y1), (x2, y2)) = (centre(parent), centre(child));
        let _ = writeln!(
            svg,
            "<g class=\"link\"><line x1=\"{x1:.1}\" y1=\"{:.1}\" x2=\"{x2:.1}\" y2=\"{:.1}\" \
             stroke=\"black\" marker-end=\"url(#arrow)\"/>",
            y1 + 20.0,
            y2 - 20.0
        );
        let lines = [
            format!("Broadcaster: {}", f.authority),
            format!("Average rate: {}", as_view_frames(f.rate(), 3)),
            format!("Buffer length: {}", as_view_frames(f.buffer_length(), 3)),
            format!(
                "Most recent transform: {}",
                as_view_frames(seconds(f.most_recent), 6)
            ),
            format!("Oldest transform: {}", as_view_frames(seconds(f.oldest), 6)),
        ];
        // Above and right of the child: each frame has one link in, and one column to
        // itself per row, so no two labels meet.
        let (lx, ly) = (x2 + 8.0, y2 - 100.0);
        for (i, line) in lines.iter().enumerate() {
            let _ = writeln!(
                svg,
                "<text x=\"{lx:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text>",
                ly + 14.0 * i as f64,
                xml_escape(line)
            );
        }
        svg.push_str("</g>\n");
    }
    for (i, name) in names.iter().enumerate() {
        let (x, y) = centre(i);
        let rx = (name.chars().count() as f64 * 4.5 + 20.0).min(FRAME_X - 10.0);
        let _ = writeln!(
            svg,
            "<g class=\"frame\"><ellipse cx=\"{x:.1}\" cy=\"{y:.1}\" rx=\"{rx:.1}\" ry=\"20\" \
             fill=\"white\" stroke=\"black\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"14\" \
             text-anchor=\"middle\">{}</text></g>",
            y + 5.0,
            xml_escape(name)
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// The file name view_frames gives its output when none is given: `frames_` and the time
/// (`%Y-%m-%d_%H.%M.%S`, here in UTC).
pub fn default_output_name(now: SystemTime) -> String {
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "frames_{year:04}-{month:02}-{day:02}_{:02}.{:02}.{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}
