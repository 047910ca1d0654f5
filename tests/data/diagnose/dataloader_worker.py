"""A dataset that adds noise in place to a tensor that requires grad, in a DataLoader worker
process: the error is raised in the worker and re-raised in the main process."""

import torch
from torch.utils.data import DataLoader, Dataset


class NoisyPoints(Dataset):
    def __len__(self) -> int:
        return 8

    def __getitem__(self, index: int) -> torch.Tensor:
        point = torch.full((3,), float(index), requires_grad=True)
        point += 0.01 * torch.randn(3)
        return point


if __name__ == "__main__":
    loader = DataLoader(NoisyPoints(), batch_size=4, num_workers=1)
    for batch in loader:
        print(batch.shape)
