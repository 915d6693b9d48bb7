//! Choosing the graphics backend before Bevy starts its renderer. Bevy asks every
//! backend at once and panics when the device it picked refuses to start (DX12 over a
//! broken or remote driver does; so does Wine's DX12), so each backend this build has is
//! tried here in the platform's order, and the first that gives a device is the one Bevy
//! uses. When none does, the user reads one line naming what was tried and what to do on
//! their system, instead of a panic.

use bevy::render::settings::{Backends, WgpuSettings, WgpuSettingsPriority};

use crate::tr;

/// The backends worth trying here, in order: the platform's native one first.
fn platform_order() -> [Backends; 3] {
    if cfg!(windows) {
        [Backends::DX12, Backends::VULKAN, Backends::GL]
    } else if cfg!(target_vendor = "apple") {
        [Backends::METAL, Backends::VULKAN, Backends::GL]
    } else {
        [Backends::VULKAN, Backends::GL, Backends::empty()]
    }
}

/// What a user of this platform does when no backend gives a device.
pub fn what_to_do() -> &'static str {
    if cfg!(windows) {
        "Update the graphics driver (from Windows Update, or from AMD, Intel or NVIDIA), \
         then start VRMA Maker again"
    } else if cfg!(target_vendor = "apple") {
        "Update macOS, then start VRMA Maker again"
    } else {
        "Install Mesa's Vulkan driver (Debian/Ubuntu: sudo apt-get install \
         mesa-vulkan-drivers libvulkan1), then start again"
    }
}

/// No backend gave a device: each one tried, with why it failed.
#[derive(Debug)]
pub struct NoDevice {
    tried: String,
}

impl NoDevice {
    /// The one line for the console and the CLI: English, as the logs are.
    pub fn line(&self) -> String {
        format!(
            "no graphics device could be started (tried {}). {}.",
            self.tried,
            what_to_do()
        )
    }

    /// The same for the message box, in the window's language (what each backend said
    /// stays as the drivers said it).
    pub fn for_the_user(&self) -> String {
        let advice = if cfg!(windows) {
            tr!("app-no-device-advice-windows")
        } else if cfg!(target_vendor = "apple") {
            tr!("app-no-device-advice-macos")
        } else {
            tr!("app-no-device-advice-linux")
        };
        tr!(
            "app-no-device",
            tried = self.tried.as_str(),
            advice = advice
        )
    }
}

/// Each backend's name for the user and for `WGPU_BACKEND`.
const NAMES: [(Backends, &str, &str); 4] = [
    (Backends::DX12, "DirectX 12", "dx12"),
    (Backends::VULKAN, "Vulkan", "vulkan"),
    (Backends::METAL, "Metal", "metal"),
    (Backends::GL, "OpenGL", "gl"),
];

/// The user's name and `WGPU_BACKEND`'s for one backend; None for a set of several.
fn names(backend: Backends) -> Option<(&'static str, &'static str)> {
    NAMES
        .iter()
        .find(|(b, _, _)| *b == backend)
        .map(|&(_, shown, env)| (shown, env))
}

fn name(backend: Backends) -> &'static str {
    names(backend).map_or("another backend", |(shown, _)| shown)
}

/// The backends to try: the one(s) `WGPU_BACKEND` names when set (the user's choice,
/// e.g. `WGPU_BACKEND=vulkan`), else the platform's order; only those compiled in.
fn candidates() -> Vec<Backends> {
    let compiled = wgpu::Instance::enabled_backend_features();
    let order: Vec<Backends> = match Backends::from_env() {
        Some(chosen) => vec![chosen],
        None => platform_order().to_vec(),
    };
    order
        .into_iter()
        .map(|backend| backend & compiled)
        .filter(|backend| !backend.is_empty())
        .collect()
}

/// Starts a device on `backends` as Bevy's renderer would (the same settings, the
/// adapter's own features and limits), then lets it go.
fn try_device(backends: Backends, settings: &WgpuSettings) -> Result<(), String> {
    let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
    descriptor.backends = backends;
    descriptor.flags = settings.instance_flags;
    let instance = wgpu::Instance::new(descriptor);
    let adapter = bevy::tasks::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: settings.power_preference,
        compatible_surface: None,
        force_fallback_adapter: settings.force_fallback_adapter,
    }))
    .map_err(|_| "no graphics device".to_string())?;
    let info = adapter.get_info();
    let (features, limits) = match settings.priority {
        WgpuSettingsPriority::Functionality => (adapter.features(), adapter.limits()),
        _ => (settings.features, settings.limits.clone()),
    };
    let device = bevy::tasks::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: None,
        required_features: features,
        required_limits: limits,
        // SAFETY: the same experimental features Bevy's renderer enables on this device.
        experimental_features: unsafe { wgpu::ExperimentalFeatures::enabled() },
        memory_hints: settings.memory_hints.clone(),
        trace: wgpu::Trace::Off,
    }))
    .map_err(|e| format!("{} refused to start ({e})", info.name))?;
    drop(device);
    Ok(())
}

/// Finds the first backend that gives a device. `Err` says every backend tried, why each
/// failed, and what to do.
pub fn choose_backend() -> Result<Backends, NoDevice> {
    let settings = WgpuSettings::default();
    let mut tried = Vec::new();
    for backend in candidates() {
        match try_device(backend, &settings) {
            Ok(()) => return Ok(backend),
            Err(why) => tried.push(format!("{}: {why}", name(backend))),
        }
    }
    if tried.is_empty() {
        tried.push(format!(
            "WGPU_BACKEND names no backend this build has ({})",
            std::env::var("WGPU_BACKEND").unwrap_or_default()
        ));
    }
    Err(NoDevice {
        tried: tried.join("; "),
    })
}

/// The renderer's settings on the first backend that gives a device (for a windowless
/// renderer, which is given its settings directly).
pub fn settings_on_first_working_backend() -> Result<WgpuSettings, String> {
    Ok(WgpuSettings {
        backends: Some(choose_backend().map_err(|no_device| no_device.line())?),
        ..WgpuSettings::default()
    })
}

/// Chooses the backend and makes it the one every renderer of this process uses: the
/// window's plugins are put together by Bevy and, with VR, by the OpenXR plugin (its
/// fallback when a headset cannot start), and both read `WGPU_BACKEND`.
///
/// # Safety
/// Sets an environment variable: call before any other thread exists.
pub unsafe fn use_first_working_backend() -> Result<(), NoDevice> {
    // A user's own list (WGPU_BACKEND=vulkan,gl) stays theirs.
    let Some((_, value)) = names(choose_backend()?) else {
        return Ok(());
    };
    // SAFETY: the caller guarantees no other thread reads the environment yet.
    unsafe { std::env::set_var("WGPU_BACKEND", value) };
    Ok(())
}

/// Tells a user of the window that it cannot open, in a message box (in their language)
/// as well as on the console (started from a shortcut, the console is nowhere to be
/// seen): `line` is the console's, `shown` the box's.
pub fn tell_in_a_message_box(line: &str, shown: &str) {
    eprintln!("error: {line}");
    if std::env::var_os("VRMA_MAKER_NO_MESSAGE_BOX").is_some() {
        return;
    }
    rfd::MessageDialog::new()
        .set_level(rfd::MessageLevel::Error)
        .set_title("VRMA Maker")
        .set_description(shown)
        .set_buttons(rfd::MessageButtons::Ok)
        .show();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_native_backend_is_tried_first_and_each_named_for_the_user() {
        let order = platform_order();
        #[cfg(windows)]
        assert_eq!(order[0], Backends::DX12);
        #[cfg(target_os = "linux")]
        assert_eq!(order[0], Backends::VULKAN);
        for backend in order.into_iter().filter(|b| !b.is_empty()) {
            assert_ne!(name(backend), "another backend");
        }
        let advice = what_to_do();
        #[cfg(windows)]
        assert!(advice.contains("graphics driver") && !advice.contains("apt-get"));
        #[cfg(target_os = "linux")]
        assert!(advice.contains("mesa-vulkan-drivers"));
    }
}
